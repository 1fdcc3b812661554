import { NotFound } from '../../domain/errors.js';
import type { AppDeps } from '../kit/deps.js';
import { payoutView } from '../kit/views.js';

export function getPayout(deps: Pick<AppDeps, 'uow'>, payoutId: string) {
  return deps.uow.run(async (stores) => {
    const payout = await stores.payouts.get(payoutId);
    if (!payout) throw new NotFound(`Payout ${payoutId} does not exist.`, { resource: 'payout', payoutId });
    return payoutView(payout);
  });
}
