/**
 * Custody's pull of a seller's tokens with their ReceiveWithAuthorization, exactly once per
 * payment (exactly-once-sender.ts); EIP-3009's nonce makes a second pull impossible anyway.
 *
 *   mined          → the pull: the tokens are in custody
 *   reverted       → TOKEN_AUTHORIZATION_INVALID: nothing was taken (the payment flow refunds the fee)
 *   not mined yet  → PullPending: the payment stays SETTLED (202), the reconciler comes back to it
 */
import { TokenAuthorizationInvalid } from '../../domain/errors.js';
import type { Token } from '../../domain/token.js';
import type { TokenAuthorization } from '../../domain/token-authorization.js';
import type { TokenPull } from '../../ports/token-pull-store.js';
import type { AppDeps } from '../deps.js';
import { sendExactlyOnce } from './exactly-once-sender.js';

/** A pull that is not mined yet: not a refusal — the payment waits, the reconciler returns to it. */
export class PullPending extends Error {
  constructor(paymentId: string, txHash: string) {
    super(`the pull of payment ${paymentId} (${txHash}) is not mined yet`);
    this.name = 'PullPending';
  }
}

export function pullTokens(
  deps: AppDeps,
  key: string,
  token: Token & { address: string },
  authorization: TokenAuthorization,
): Promise<TokenPull> {
  const issuer = deps.tokenIssuer;
  return sendExactlyOnce(deps, {
    key,
    network: token.network,
    chain: issuer,
    store: (s) => s.pulls,
    sign: async () => ({
      paymentId: key,
      network: token.network,
      tokenId: token.tokenId,
      ...(await issuer.prepareReceive(token.network, token.address, authorization)),
      createdAt: deps.clock.now(),
    }),
    reverted: () =>
      new TokenAuthorizationInvalid(
        'pull_failed',
        'The tokens could not be pulled with this authorization (moved away, used, cancelled or expired); nothing was taken.',
      ),
    pending: (txHash) => new PullPending(key, txHash),
  });
}
