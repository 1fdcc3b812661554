/** GET /api/stats: totals per network. */
import { formatUsd } from '../../domain/money.js';
import type { AppDeps } from '../kit/deps.js';

export function getStats(deps: Pick<AppDeps, 'uow'>) {
  return deps.uow.run(async (stores) => ({
    networks: (await stores.trades.stats()).map((s) => ({
      network: s.network,
      tokens: s.tokens,
      trades: s.trades,
      volumeUsd: formatUsd(s.volumeUsd),
      feesUsd: formatUsd(s.feesUsd),
    })),
  }));
}
