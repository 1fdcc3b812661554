/**
 * A Sign-In-With-X proof of the connected wallet (docs/api.md "Sign-In-With-X"), for a free action
 * only a wallet may take (a creator hiding a comment): a CAIP-122 message bound to this origin,
 * with a fresh nonce, signed by the wallet (EIP-191) through the official x402 extension. Loaded
 * only when used.
 */
import type { Address } from 'viem';

const NONCE_ALPHABET = 'ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789';

function nonce(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return [...bytes].map((b) => NONCE_ALPHABET[b % NONCE_ALPHABET.length]).join('');
}

/** The SIGN-IN-WITH-X header value proving `address` on `chainId` (a CAIP-2 network the service takes). */
export async function proveWallet(address: string, chainId: string, statement: string): Promise<string> {
  const [{ createSIWxPayload, encodeSIWxHeader }, { walletClient }] = await Promise.all([import('@x402/extensions/sign-in-with-x'), import('./wallet.js')]);
  const client = walletClient(address);
  const now = Date.now();
  const info = {
    domain: location.host,
    uri: location.origin,
    statement,
    version: '1',
    nonce: nonce(),
    issuedAt: new Date(now).toISOString(),
    // Well within the 5 minutes a proof may last.
    expirationTime: new Date(now + 4 * 60_000).toISOString(),
    chainId,
    type: 'eip191' as const,
  };
  const signer = { account: { address }, signMessage: ({ message }: { message: string }) => client.signMessage({ account: address as Address, message }) };
  return encodeSIWxHeader(await createSIWxPayload(info, signer, location.href));
}
