/**
 * The live event stream (GET /api/events, Server-Sent Events). The browser reconnects by itself
 * and resumes with Last-Event-ID; a view closes its stream when it is left.
 */
import type { StreamEvent } from './types.js';

export type Handlers = Record<string, (event: StreamEvent) => void>;

export function subscribe(filter: { tokenId?: string }, handlers: Handlers): () => void {
  const q = filter.tokenId ? `?tokenId=${encodeURIComponent(filter.tokenId)}` : '';
  const source = new EventSource(`/api/events${q}`);
  for (const [type, handle] of Object.entries(handlers)) {
    source.addEventListener(type, (e) => {
      try {
        handle(JSON.parse((e as MessageEvent<string>).data) as StreamEvent);
      } catch {
        // An event the page cannot read is skipped; the next refresh shows the state.
      }
    });
  }
  return () => source.close();
}
