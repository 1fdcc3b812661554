import type { Network } from '../domain/network.js';
import type { AuthorizationOnChain } from '../domain/payment.js';

export type { AuthorizationOnChain };

/**
 * Reads what the chain knows of an EIP-3009 authorization: whether its nonce is unused, used by
 * a transfer or cancelled, read at one block whose timestamp is returned with it.
 */
export interface AuthorizationReader {
  authorization(network: Network, authorizer: string, nonce: string): Promise<AuthorizationOnChain>;
}
