/**
 * One held authorization, one holder (docs/decisions/0067): a signed EIP-3009 authorization can
 * be collected once, so at most one open order or pledge may carry it — else the others could
 * only ever fail, after their fee was paid. The database keeps one row per authorization naming
 * its holder (HeldAuthorizationStore), taken with a compare-and-set in the transaction that
 * writes the holder:
 *
 *   claim of a paid request (pipeline/claim.ts) → the payment holds it: a rival request is
 *                                                 REJECTED before its fee settles, charged nothing
 *   the payment applied (placeOrder, placePledge) → its order or pledge takes it from the payment;
 *                                                 held by another live holder: refused, refunded
 *
 * A holder is live while it can still collect: a payment not yet closed (VERIFIED, SETTLING,
 * SETTLED), an order OPEN or EXECUTING, a pledge PLEDGED. A dead holder's row is taken over by
 * the next holder, so no path that ends an order, a pledge or a payment has to release anything.
 */
import { HeldAuthorizationInvalid } from '../../domain/errors.js';
import type { Network } from '../../domain/network.js';
import type { HeldAuthorizationKey, Holder } from '../../ports/held-authorization-store.js';
import type { Stores } from '../../ports/unit-of-work.js';

export type { HeldAuthorizationKey, Holder } from '../../ports/held-authorization-store.js';

/** The key of `authorization` (its signer and nonce) of `asset` on `network`: a stablecoin's symbol, or a token's id. */
export const heldKeyOf = (network: Network, asset: string, authorization: { from: string; nonce: string }): HeldAuthorizationKey => ({
  network,
  asset,
  wallet: authorization.from.toLowerCase(),
  nonce: authorization.nonce.toLowerCase(),
});

/** Whether `holder` may still collect the authorization it holds. */
export async function holderLive(stores: Stores, holder: Holder): Promise<boolean> {
  switch (holder.kind) {
    case 'payment': {
      const state = (await stores.payments.get(holder.id))?.state;
      return state === 'VERIFIED' || state === 'SETTLING' || state === 'SETTLED';
    }
    case 'order': {
      const state = (await stores.orders.get(holder.id))?.state;
      return state === 'OPEN' || state === 'EXECUTING';
    }
    case 'pledge':
      return (await stores.raises.getPledge(holder.id))?.state === 'PLEDGED';
  }
}

/** The payment that holds an authorization from its claim until the order or pledge it pays for takes it over. */
export const paymentHolder = (paymentId: string): Holder => ({ kind: 'payment', id: paymentId });

const sameHolder = (a: Holder, b: Holder | undefined) => b !== undefined && a.kind === b.kind && a.id === b.id;

export const heldAlready = () =>
  new HeldAuthorizationInvalid('used', 'This authorization is held already by another open order or pledge (or one being paid for); sign a fresh one (a new nonce).');

/**
 * HELD_AUTHORIZATION_INVALID `used` when a live holder other than `mine` holds the authorization
 * (before a 402, and again once the payer is proven): only one of them could ever collect it.
 */
export async function refuseIfHeld(stores: Stores, key: HeldAuthorizationKey, mine?: Holder): Promise<void> {
  const holder = await stores.heldAuthorizations.holderOf(key);
  if (holder && !sameHolder(holder, mine) && (await holderLive(stores, holder))) throw heldAlready();
}

/**
 * `holder` takes the authorization, in the caller's transaction: from nobody, from a dead
 * holder, or from `from` (the payment placing it); held by any other live holder — or taken by
 * another in the meantime — it is refused (`used`), and the caller's transaction rolls back.
 */
export async function holdAuthorization(stores: Stores, key: HeldAuthorizationKey, holder: Holder, from?: Holder): Promise<void> {
  const current = await stores.heldAuthorizations.holderOf(key);
  if (current && sameHolder(holder, current)) return;
  if (current && !sameHolder(current, from) && (await holderLive(stores, current))) throw heldAlready();
  if (!(await stores.heldAuthorizations.take(key, holder, current))) throw heldAlready();
}
