import type { AppDeps } from '../kit/deps.js';
import { loadTokenView, type TokenView } from '../kit/views.js';
import { loadToken } from '../trading/index.js';

/** The token's view as kept, when it may be given with no query at all (young, vouched for by the change feed); else undefined. */
export function keptToken(deps: Pick<AppDeps, 'clock' | 'tokenViews'>, tokenId: string): TokenView | undefined {
  return deps.tokenViews?.trusted(tokenId, deps.clock.now());
}

/** The token's view; `fresh`: checked against the database, not taken on the change feed's word (`Cache-Control: no-cache`). */
export function getToken(deps: Pick<AppDeps, 'uow' | 'clock' | 'tokenViews'>, tokenId: string, options: { fresh?: boolean } = {}): Promise<TokenView> {
  // The hot path (a kept view the feed vouches for) makes nothing it would not use.
  const kept = options.fresh ? undefined : keptToken(deps, tokenId);
  if (kept) return Promise.resolve(kept);
  const now = deps.clock.now();
  const build = () => deps.uow.run(async (stores) => loadTokenView(stores, await loadToken(stores, tokenId), now));
  return deps.tokenViews ? deps.tokenViews.get(deps.uow, tokenId, now, build, options) : build();
}
