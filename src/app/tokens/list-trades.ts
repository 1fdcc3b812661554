/** GET /api/tokens/:id/trades, newest first. */
import type { PageRequest } from '../../ports/page.js';
import type { AppDeps } from '../kit/deps.js';
import { loadToken } from '../trading/index.js';
import { tradeView } from '../kit/views.js';

export function listTrades(deps: Pick<AppDeps, 'uow'>, tokenId: string, page: PageRequest) {
  return deps.uow.run(async (stores) => {
    await loadToken(stores, tokenId);
    const result = await stores.trades.listByToken(tokenId, page);
    return { items: result.items.map(tradeView), nextCursor: result.nextCursor };
  });
}
