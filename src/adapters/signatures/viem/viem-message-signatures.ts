/** MessageSignatures by viem: ECDSA recovery of an EIP-191 personal_sign signature. No key, no chain. */
import { recoverMessageAddress, type Hex } from 'viem';
import type { MessageSignatures } from '../../../ports/signatures.js';

export class ViemMessageSignatures implements MessageSignatures {
  async signerOf(message: string, signature: string): Promise<string | null> {
    // recoverMessageAddress answers a checksummed address, or throws on a signature it cannot read.
    return recoverMessageAddress({ message, signature: signature as Hex }).catch(() => null);
  }
}
