import type { Network } from '../domain/network.js';

/** The custody transactions a paid request may need signed while it waits: a sell's pull, a pool swap. */
export type CustodyIntentKind = 'pull' | 'swap';

/**
 * A process that does not sign for custody asks the one that does (docs/decisions/0031): "sign
 * this payment's pull (or swap)", or "sign it again: the one recorded was dropped". The signer
 * records the signed transaction in the kind's own store (token_pulls, pool_swaps) exactly as it
 * would for its own request, and the asker follows it there.
 */
export interface CustodyIntent {
  readonly kind: CustodyIntentKind;
  readonly paymentId: string;
  readonly network: Network;
  readonly tokenId: string;
  /** What to sign, as the kind encodes it (JSON text). */
  readonly request: string;
  /** The recorded transaction the asker saw dropped, to be signed again; null: sign the first one. */
  readonly replaces: string | null;
  readonly requestedAt: Date;
}

export interface CustodyIntentStore {
  /** Asks (again): one intent per kind and payment, the latest ask standing. */
  request(intent: CustodyIntent): Promise<void>;
  /** The intents waiting for the signer, oldest ask first. */
  open(limit: number): Promise<CustodyIntent[]>;
  /**
   * The signer has answered `intent`: it is deleted, unless it was asked again since (another
   * `replaces` or `requestedAt`), so a newer ask is never lost.
   */
  answered(intent: CustodyIntent): Promise<boolean>;
}
