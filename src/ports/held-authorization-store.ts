import type { Network } from '../domain/network.js';

/**
 * One signed EIP-3009 authorization as the chain tells it apart: its contract on its network (a
 * stablecoin by its symbol, a launched token by its id), its signer and its nonce — wallet and
 * nonce lower-cased by whoever makes the key (app/held/hold-authorization.ts).
 */
export interface HeldAuthorizationKey {
  network: Network;
  asset: string;
  wallet: string;
  nonce: string;
}

/**
 * What holds an authorization: the order or pledge that will collect it, or — between its claim
 * and its application — the payment of the request that places one.
 */
export interface Holder {
  kind: 'payment' | 'order' | 'pledge';
  id: string;
}

/**
 * Who holds each held authorization (docs/decisions/0067): one row per authorization, so of two
 * racing holders the database lets one in. A row is never deleted; it names the last holder,
 * which holds it while that holder is live (the app decides: hold-authorization.ts).
 */
export interface HeldAuthorizationStore {
  /** The authorization's holder now, or null when nothing ever held it. */
  holderOf(key: HeldAuthorizationKey): Promise<Holder | null>;
  /**
   * Compare-and-set: `holder` takes the authorization if `expected` holds it now (null: if no
   * row exists — an insert). False when another took it first; of two racing takers with the
   * same `expected`, at most one wins.
   */
  take(key: HeldAuthorizationKey, holder: Holder, expected: Holder | null): Promise<boolean>;
}
