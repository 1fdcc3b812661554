/**
 * Collecting a held authorization (usdc-authorization.ts): custody submits the wallet's
 * `receiveWithAuthorization` of USDC (or EURC), exactly once per key, through the same
 * exactly-once sender and record as a sell's pull of tokens (custody/token-pull.ts) — a crash
 * anywhere follows the one transaction signed for the key, never a second.
 *
 *   mined          → the record: the money is custody's
 *   reverted       → HELD_AUTHORIZATION_INVALID, reason `unusable`: nothing moved, book nothing
 *   cannot be used → the same, before anything is signed (nonce used or cancelled, balance spent,
 *                    expired): no transaction at all, with the reason
 *   not mined yet  → CollectPending: try again later with the same key
 */
import { HeldAuthorizationInvalid } from '../../domain/errors.js';
import { formatUsd } from '../../domain/money.js';
import type { Network } from '../../domain/network.js';
import type { TokenPull } from '../../ports/token-pull-store.js';
import { receiveOf, sendExactlyOnce } from '../custody/index.js';
import type { AppDeps } from '../kit/deps.js';
import type { HeldAuthorization } from './usdc-authorization.js';

/** A collect not mined within the sender's wait: not a refusal — the caller comes back with the same key. */
export class CollectPending extends Error {
  constructor(key: string, txHash: string) {
    super(`the collect ${key} (${txHash}) is not mined yet`);
    this.name = 'CollectPending';
  }
}

/**
 * Why `authorization` (of the stablecoin at `assetAddress`) cannot be collected now — its window
 * closed, its nonce used or cancelled on chain, its wallet's money spent — or null. Read from the
 * chain, before anything is signed (a collect, a raise's end).
 */
export async function heldUnusable(
  deps: Pick<AppDeps, 'clock' | 'tokenIssuer'>,
  network: Network,
  assetAddress: string,
  a: HeldAuthorization,
): Promise<{ reason: 'expired' | 'used' | 'balance'; detail: string } | null> {
  if (a.validBefore <= BigInt(Math.floor(deps.clock.now().getTime() / 1000))) return { reason: 'expired', detail: 'it expired' };
  const [used, balance] = await Promise.all([deps.tokenIssuer.authorizationState(network, assetAddress, a.from, a.nonce), deps.tokenIssuer.balanceOf(network, assetAddress, a.from)]);
  if (used) return { reason: 'used', detail: 'its nonce was used or cancelled on chain' };
  return balance < a.value ? { reason: 'balance', detail: `the wallet holds ${formatUsd(balance)}, less than ${formatUsd(a.value)}` } : null;
}

const unusable = (why: string, detail: string) =>
  new HeldAuthorizationInvalid('unusable', `The held authorization can no longer be used: ${detail}; nothing was taken.`, { why });

/**
 * Collects `authorization` (of the stablecoin at `assetAddress` on `network`) into custody,
 * exactly once per `key` (e.g. `order:<id>`); `tokenId` is what the record is filed under.
 * Resolves with the mined transaction's record.
 */
export async function collectHeld(
  deps: Pick<AppDeps, 'uow' | 'clock' | 'tokenIssuer' | 'settings' | 'custody' | 'logger' | 'metrics'>,
  key: string,
  network: Network,
  assetAddress: string,
  authorization: HeldAuthorization,
  tokenId = '',
): Promise<TokenPull> {
  const send = receiveOf(
    deps,
    key,
    network,
    { tokenId, address: assetAddress, authorization },
    {
      reverted: () => unusable('reverted', 'custody’s receiveWithAuthorization reverted on chain (nonce used or cancelled, balance spent or window closed)'),
      pending: (txHash) => new CollectPending(key, txHash),
    },
  );
  return sendExactlyOnce(deps, {
    ...send,
    // Read first, so a wallet that spent its money or cancelled its authorization gets its reason
    // and custody pays no gas for a transaction that must revert (a refusal stands only while no
    // collect is recorded for the key: exactly-once-sender.ts).
    beforeSigning: {
      async check() {
        const why = await heldUnusable(deps, network, assetAddress, authorization);
        if (why) throw unusable(why.reason, why.detail);
      },
      // Another copy of this collect found it unusable a moment earlier (decisions 0059, 0063):
      // the same refusal, why included (an order's failure names it); a HELD_AUTHORIZATION_INVALID still.
      refusedBefore: ({ refusal }) =>
        refusal?.code === 'HELD_AUTHORIZATION_INVALID'
          ? new HeldAuthorizationInvalid('unusable', refusal.message, { why: String(refusal.details?.['why'] ?? 'refused') })
          : unusable('refused', 'it was found unusable when it was checked'),
    },
  });
}
