import { formatUsd } from '../../domain/money.js';
import type { Network } from '../../domain/network.js';
import { valuePosition } from '../../domain/position.js';
import type { Token } from '../../domain/token.js';
import type { AppDeps } from '../deps.js';
import { positionView, type PositionView } from '../views.js';

export interface ListPositionsQuery {
  wallet: string;
  network: Network;
  /** false hides closed (zero-balance) positions. Default true. */
  includeZero?: boolean | undefined;
}

export interface PositionsResult {
  wallet: string;
  network: Network;
  items: PositionView[];
  totals: { valueUsd: string; costBasisUsd: string; unrealizedPnlUsd: string; realizedPnlUsd: string };
}

export function listPositions(deps: AppDeps, query: ListPositionsQuery): Promise<PositionsResult> {
  return deps.uow.read(async (stores) => {
    const positions = (await stores.positions.listByWallet(query.network, query.wallet)).filter(
      (p) => query.includeZero !== false || p.balance > 0n,
    );
    const tokens = new Map<string, Token>();
    for (const p of positions) {
      const t = await stores.tokens.get(p.tokenId);
      if (t) tokens.set(t.tokenId, t);
    }
    let valueUsd = 0n;
    let costBasisUsd = 0n;
    let realizedPnlUsd = 0n;
    const items: PositionView[] = [];
    for (const p of positions) {
      const token = tokens.get(p.tokenId);
      if (!token) continue;
      valueUsd += valuePosition(p, token.curve).valueUsd;
      costBasisUsd += p.costBasisUsd;
      realizedPnlUsd += p.realizedPnlUsd;
      items.push(positionView(p, token));
    }
    return {
      wallet: query.wallet,
      network: query.network,
      items,
      totals: {
        valueUsd: formatUsd(valueUsd),
        costBasisUsd: formatUsd(costBasisUsd),
        unrealizedPnlUsd: formatUsd(valueUsd - costBasisUsd),
        realizedPnlUsd: formatUsd(realizedPnlUsd),
      },
    };
  });
}
