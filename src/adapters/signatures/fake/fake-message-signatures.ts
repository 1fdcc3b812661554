/**
 * MessageSignatures without cryptography, for tests of the flow: a signature is
 * `fake:<wallet lower-case>:<the message, hex>` (FakeMessageSignatures.sign). Anything else, or a
 * signature of another message, names no signer.
 */
import { getAddress, isAddress } from 'viem';
import type { MessageSignatures } from '../../../ports/signatures.js';

const hex = (message: string) => Buffer.from(message, 'utf8').toString('hex');

export class FakeMessageSignatures implements MessageSignatures {
  /** The signature the fake reads as `wallet`'s of `message`. */
  static sign(wallet: string, message: string): string {
    return `fake:${wallet.toLowerCase()}:${hex(message)}`;
  }

  async signerOf(message: string, signature: string): Promise<string | null> {
    const [scheme, wallet, signed, ...rest] = signature.split(':');
    if (scheme !== 'fake' || !wallet || !isAddress(wallet, { strict: false }) || signed !== hex(message) || rest.length > 0) return null;
    return getAddress(wallet);
  }
}
