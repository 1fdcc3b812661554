import type { Network, PaymentAsset } from '../domain/network.js';
import type { AuthorizationOnChain } from '../domain/payment.js';

export type { AuthorizationOnChain };

/** A Permit2 signature transfer of the x402 `upto` scheme, as its payment names it. */
export interface Permit2Transfer {
  /** Who signed it (`permit2Authorization.from`). */
  owner: string;
  /** Its Permit2 nonce, 0x + 64 hex. */
  nonce: string;
  /** Where its settlement pays (`witness.to`: the treasury). */
  to: string;
  /** What its settlement moves: the payment's charge, in the asset's smallest units. */
  amount: bigint;
  /** The asset it moves (USDC unless named). */
  asset?: PaymentAsset;
}

/**
 * Reads what the chain knows of a payment's authorization, at one block whose timestamp is
 * returned with it.
 */
export interface AuthorizationReader {
  /**
   * An EIP-3009 authorization, on the contract of the asset it was signed for (USDC unless
   * named): its nonce unused, used by a transfer, or cancelled.
   */
  authorization(network: Network, authorizer: string, nonce: string, asset?: PaymentAsset): Promise<AuthorizationOnChain>;
  /**
   * A Permit2 transfer of the x402 `upto` scheme (docs/payments.md "Pay up to"): `unused` while
   * its nonce is unspent in Permit2's bitmap; `used`, with the transaction, once the upto proxy
   * settled it to `to`; `cancelled` when its nonce was spent otherwise — invalidated by its
   * owner, or taken by another Permit2 transfer the owner signed — so that nothing reached `to`
   * under it and nothing ever will. Unlike EIP-3009's, a Permit2 nonce is shared by every
   * transfer its owner signs: a spent nonce alone proves no payment, only the settlement does.
   */
  permit2Transfer(network: Network, transfer: Permit2Transfer): Promise<AuthorizationOnChain>;
}
