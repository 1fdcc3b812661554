import type { AppDeps } from '../deps.js';
import { loadTokenView, type TokenView } from '../views.js';
import { loadToken } from '../trading/load-token.js';

export function getToken(deps: AppDeps, tokenId: string): Promise<TokenView> {
  return deps.uow.read(async (stores) => {
    const now = deps.clock.now();
    const build = async () => loadTokenView(stores, await loadToken(stores, tokenId), now);
    return deps.tokenViews ? deps.tokenViews.get(stores, tokenId, now, build) : build();
  });
}
