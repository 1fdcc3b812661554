import { NetworkDetectionUnavailable } from '../../domain/errors.js';
import { formatUsd } from '../../domain/money.js';
import type { Network } from '../../domain/network.js';
import { valuePosition, type Position } from '../../domain/position.js';
import type { Token } from '../../domain/token.js';
import type { NetworkDetector } from '../../ports/network-detector.js';
import type { AppDeps } from '../kit/deps.js';
import type { AppMetrics } from '../kit/metrics.js';
import { indexerView, positionView, type IndexerView, type PositionView } from '../kit/views.js';

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
  /** How far the balances follow transfers on chain. */
  indexer: IndexerView;
}

export async function listPositions(deps: Pick<AppDeps, 'uow' | 'tokenIssuer'>, query: ListPositionsQuery): Promise<PositionsResult> {
  const result = await deps.uow.run(async (stores) => {
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
    const held: { position: Position; token: Token }[] = [];
    for (const p of positions) {
      const token = tokens.get(p.tokenId);
      if (!token) continue;
      valueUsd += valuePosition(p, token.curve).valueUsd;
      costBasisUsd += p.costBasisUsd;
      realizedPnlUsd += p.realizedPnlUsd;
      held.push({ position: p, token });
    }
    return {
      held,
      indexer: indexerView(query.network, await stores.transfers.cursor(query.network)),
      totals: {
        valueUsd: formatUsd(valueUsd),
        costBasisUsd: formatUsd(costBasisUsd),
        unrealizedPnlUsd: formatUsd(valueUsd - costBasisUsd),
        realizedPnlUsd: formatUsd(realizedPnlUsd),
      },
    };
  });
  // The chain is read outside the transaction; a token not yet deployed, or a chain that does
  // not answer, shows null rather than failing the whole list (the ledger stays the answer).
  const onChain = await Promise.all(
    result.held.map(({ position, token }) =>
      token.address && token.deployment.state === 'DEPLOYED'
        ? deps.tokenIssuer.balanceOf(token.network, token.address, position.wallet).catch(() => null)
        : Promise.resolve(null),
    ),
  );
  return {
    wallet: query.wallet,
    network: query.network,
    items: result.held.map(({ position, token }, i) => positionView(position, token, onChain[i] ?? null)),
    totals: result.totals,
    indexer: result.indexer,
  };
}

/** The network a wallet's positions are read on when none is named: its own, by its history (503 when detection cannot answer). */
export async function detectWalletNetwork(deps: { detector: NetworkDetector; metrics: AppMetrics }, wallet: string): Promise<Network> {
  try {
    return (await deps.detector.detect(wallet)).network;
  } catch {
    deps.metrics.increment('network_detection_total', { result: 'failure' });
    throw new NetworkDetectionUnavailable();
  }
}
