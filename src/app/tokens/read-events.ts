/** The event log as GET /api/events streams it (docs/api.md "Events"): where it ends, and what came after an id. */
import type { EventFilter } from '../../ports/event-log.js';
import type { AppDeps } from '../kit/deps.js';
import { eventView } from '../kit/views.js';

/** The last event's id: a live feed starts after it. */
export function latestEventId(deps: Pick<AppDeps, 'uow'>): Promise<number> {
  return deps.uow.run((stores) => stores.events.lastId());
}

/** Up to `limit` events after `afterId` that match `filter`, oldest first, as the API shows them. */
export async function readEvents(deps: Pick<AppDeps, 'uow'>, afterId: number, filter: EventFilter, limit: number) {
  const events = await deps.uow.run((stores) => stores.events.readAfter(afterId, filter, limit));
  return events.map(eventView);
}
