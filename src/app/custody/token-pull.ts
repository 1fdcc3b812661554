/**
 * Custody's pull of a seller's tokens with their ReceiveWithAuthorization, exactly once per
 * payment (exactly-once-sender.ts); EIP-3009's nonce makes a second pull impossible anyway.
 *
 *   mined          → the pull: the tokens are in custody
 *   reverted       → TOKEN_AUTHORIZATION_INVALID: nothing was taken (the payment flow refunds the fee)
 *   not mined yet  → PullPending: the payment stays SETTLED (202), the reconciler comes back to it
 */
import { TokenAuthorizationInvalid } from '../../domain/errors.js';
import type { Network } from '../../domain/network.js';
import type { Token } from '../../domain/token.js';
import { authorizationFromText, authorizationToText, type TokenAuthorization, type TokenAuthorizationText } from '../../domain/token-authorization.js';
import type { CustodyIntent } from '../../ports/custody-intent-store.js';
import type { TokenPull } from '../../ports/token-pull-store.js';
import type { AppDeps } from '../kit/deps.js';
import { sendExactlyOnce, type ExactlyOnce } from './exactly-once-sender.js';

/** A pull that is not mined yet: not a refusal — the payment waits, the reconciler returns to it. */
export class PullPending extends Error {
  constructor(paymentId: string, txHash: string) {
    super(`the pull of payment ${paymentId} (${txHash}) is not mined yet`);
    this.name = 'PullPending';
  }
}

/** What a pull is signed from; an intent carries it as JSON (amounts as decimal strings). */
export interface PullRequest {
  tokenId: string;
  address: string;
  authorization: TokenAuthorization;
}

function encode(r: PullRequest): string {
  return JSON.stringify({ ...r, authorization: authorizationToText(r.authorization) });
}

function decode(json: string): PullRequest {
  const r = JSON.parse(json) as Omit<PullRequest, 'authorization'> & { authorization: TokenAuthorizationText };
  return { ...r, authorization: authorizationFromText(r.authorization) };
}

/** What a receive that reverted or is not mined yet is to its caller; a sell's by default. */
export interface ReceiveOutcomes {
  reverted(): Error;
  pending(txHash: string): Error;
}

const sellOutcomes = (key: string): ReceiveOutcomes => ({
  reverted: () =>
    new TokenAuthorizationInvalid(
      'pull_failed',
      'The tokens could not be pulled with this authorization (moved away, used, cancelled or expired); nothing was taken.',
    ),
  pending: (txHash) => new PullPending(key, txHash),
});

/**
 * Custody's receiveWithAuthorization of `r.authorization` on the EIP-3009 token at `r.address` —
 * a launched token for a sell, USDC or EURC for a held authorization (held/collect.ts): the same
 * call, the same exactly-once record (one per key in the pulls store), the same intent.
 */
export function receiveOf(deps: Pick<AppDeps, 'clock' | 'tokenIssuer'>, key: string, network: Network, r: PullRequest, outcomes: ReceiveOutcomes = sellOutcomes(key)): ExactlyOnce<TokenPull> {
  const issuer = deps.tokenIssuer;
  return {
    key,
    network,
    tokenId: r.tokenId,
    chain: issuer,
    store: (s) => s.pulls,
    sign: async () => ({
      paymentId: key,
      network,
      tokenId: r.tokenId,
      ...(await issuer.prepareReceive(network, r.address, r.authorization)),
      createdAt: deps.clock.now(),
    }),
    reverted: outcomes.reverted,
    pending: outcomes.pending,
    intent: { kind: 'pull', tokenId: r.tokenId, request: encode(r) },
  };
}

/** The pull an intent asks for, as custody's signer signs it (custody-intents.ts). */
export const pullOfIntent = (deps: Pick<AppDeps, 'clock' | 'tokenIssuer'>, intent: CustodyIntent): ExactlyOnce<TokenPull> =>
  receiveOf(deps, intent.paymentId, intent.network, decode(intent.request));

export function pullTokens(
  deps: Pick<AppDeps, 'uow' | 'clock' | 'tokenIssuer' | 'settings' | 'custody' | 'logger' | 'metrics'>,
  key: string,
  token: Token & { address: string },
  authorization: TokenAuthorization,
): Promise<TokenPull> {
  return sendExactlyOnce(deps, receiveOf(deps, key, token.network, { tokenId: token.tokenId, address: token.address, authorization }));
}
