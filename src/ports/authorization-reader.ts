import type { Network } from '../domain/network.js';

export interface AuthorizationOnChain {
  /** The EIP-3009 nonce is used (or cancelled) on chain. */
  used: boolean;
  /** The transaction that used it, when found. */
  transaction: string | null;
}

/** Reads what the chain knows of an EIP-3009 authorization (authorizationState and its use). */
export interface AuthorizationReader {
  authorization(network: Network, authorizer: string, nonce: string): Promise<AuthorizationOnChain>;
}
