import type { Network } from '../../domain/network.js';
import type { TokenState } from '../../domain/token.js';
import type { TokenSort } from '../../ports/token-repository.js';
import type { AppDeps } from '../kit/deps.js';
import { DAY_MS, loadTokenView, type TokenView } from '../kit/views.js';

export interface ListTokensQuery {
  network?: Network | undefined;
  state?: TokenState | undefined;
  creator?: string | undefined;
  q?: string | undefined;
  sort?: TokenSort | undefined;
  limit?: number | undefined;
  cursor?: string | undefined;
}

export function listTokens(deps: Pick<AppDeps, 'uow' | 'clock'>, query: ListTokensQuery): Promise<{ items: TokenView[]; nextCursor: string | null }> {
  const now = deps.clock.now();
  return deps.uow.run(async (stores) => {
    const page = await stores.tokens.list({
      ...query,
      sort: query.sort ?? 'created',
      limit: query.limit ?? 20,
      since: new Date(now.getTime() - DAY_MS),
    });
    // One query for the page's creator earnings, not one per token.
    const earned = await stores.earnings.creatorTotals(page.items.map((t) => t.tokenId));
    return {
      items: await Promise.all(page.items.map((t) => loadTokenView(stores, t, now, earned.get(t.tokenId) ?? 0n))),
      nextCursor: page.nextCursor,
    };
  });
}
