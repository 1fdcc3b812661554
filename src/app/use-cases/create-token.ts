import { newDeployment } from '../../domain/deployment.js';
import type { Network } from '../../domain/network.js';
import { newToken, type TokenMetadata } from '../../domain/token.js';
import type { AppDeps } from '../deps.js';
import { applyInUnitOfWork, type Paid } from '../paid.js';
import { tokenView, type TokenView } from '../views.js';

export interface CreateTokenCommand {
  metadata: TokenMetadata;
  /** The payer of the create payment. */
  creator: string;
  /** Who brought the token (earns a share of its fees); the creator naming itself names nobody. */
  platformReferrer?: string | null;
  /** The network of the creator's payment: the token lives there for ever. */
  network: Network;
}

/**
 * Creates a token: its ERC-20's address is known at once (CREATE2), and its deployment is queued
 * in the same transaction as the token (the deployment outbox sends it).
 */
export function createToken(deps: AppDeps, cmd: CreateTokenCommand, paid?: Paid<TokenView>): Promise<TokenView> {
  return applyInUnitOfWork(deps, paid, async (stores, now) => {
    const tokenId = deps.ids.next('tok');
    const params = deps.settings.curve;
    const address = deps.tokenIssuer.predictAddress(cmd.network, {
      tokenId,
      name: cmd.metadata.name,
      symbol: cmd.metadata.symbol,
      totalSupply: params.totalSupply,
    });
    const referrer = cmd.platformReferrer && cmd.platformReferrer.toLowerCase() !== cmd.creator.toLowerCase() ? cmd.platformReferrer : null;
    const token = newToken({ tokenId, network: cmd.network, metadata: cmd.metadata, creator: cmd.creator, platformReferrer: referrer, params, address, now });
    await stores.tokens.insert(token);
    await stores.deployments.enqueue(newDeployment({ deploymentId: deps.ids.next('dep'), network: token.network, tokenId, address, now }));
    const view = tokenView(token, { volumeUsd24h: 0n, trades24h: 0, holders: 0 });
    await stores.events.append({
      type: 'token.created',
      network: token.network,
      tokenId: token.tokenId,
      data: { token: view, paymentId: paid?.payment.paymentId ?? null },
      createdAt: now,
    });
    return view;
  });
}
