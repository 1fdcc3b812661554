import type { Network } from '../../domain/network.js';
import { newToken, type TokenMetadata } from '../../domain/token.js';
import type { AppDeps } from '../deps.js';
import { applyInUnitOfWork, type Paid } from '../paid.js';
import { tokenView, type TokenView } from '../views.js';

export interface CreateTokenCommand {
  metadata: TokenMetadata;
  /** The payer of the create payment. */
  creator: string;
  /** The network of the creator's payment: the token lives there for ever. */
  network: Network;
}

export function createToken(deps: AppDeps, cmd: CreateTokenCommand, paid?: Paid<TokenView>): Promise<TokenView> {
  return applyInUnitOfWork(deps, paid, async (stores, now) => {
    const token = newToken({
      tokenId: deps.ids.next('tok'),
      network: cmd.network,
      metadata: cmd.metadata,
      creator: cmd.creator,
      params: deps.settings.curve,
      now,
    });
    await stores.tokens.insert(token);
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
