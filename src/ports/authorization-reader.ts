import type { Network, PaymentAsset } from '../domain/network.js';
import type { AuthorizationOnChain } from '../domain/payment.js';

export type { AuthorizationOnChain };

/**
 * Reads what the chain knows of an EIP-3009 authorization: whether its nonce is unused, used by
 * a transfer or cancelled, read at one block whose timestamp is returned with it — on the
 * contract of the asset the authorization was signed for (USDC unless named).
 */
export interface AuthorizationReader {
  authorization(network: Network, authorizer: string, nonce: string, asset?: PaymentAsset): Promise<AuthorizationOnChain>;
}
