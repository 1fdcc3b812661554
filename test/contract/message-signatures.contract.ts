/**
 * What every MessageSignatures answers: the checksummed signer of a message it signed, never the
 * signer for another message, and null — not an exception — for what is no signature at all.
 */
import { describe, expect, it } from 'vitest';
import type { MessageSignatures } from '../../src/ports/signatures.js';

export interface MessageSignaturesHarness {
  signatures: MessageSignatures;
  /** `wallet`'s signature of `message`, made as this adapter's signatures are. */
  sign(wallet: 'alice' | 'mallory', message: string): Promise<string>;
  /** The checksummed address of each wallet. */
  address(wallet: 'alice' | 'mallory'): string;
}

export function messageSignaturesContract(name: string, make: () => Promise<MessageSignaturesHarness>) {
  describe(`MessageSignatures contract: ${name}`, () => {
    it('a signature of the message names its signer, EIP-55 checksummed', async () => {
      const h = await make();
      for (const wallet of ['alice', 'mallory'] as const) {
        const signer = await h.signatures.signerOf('Cancel order 01ABC', await h.sign(wallet, 'Cancel order 01ABC'));
        expect(signer).toBe(h.address(wallet));
        expect(signer).toMatch(/^0x[0-9a-fA-F]{40}$/);
      }
    });

    it('a signature of another message never names the signer', async () => {
      const h = await make();
      const signature = await h.sign('alice', 'Cancel order 01ABC');
      expect(await h.signatures.signerOf('Cancel order 01ABD', signature)).not.toBe(h.address('alice'));
      expect(await h.signatures.signerOf('Cancel pledge 01ABC', signature)).not.toBe(h.address('alice'));
    });

    it('what is no signature names nobody, never an exception', async () => {
      const h = await make();
      for (const signature of ['', 'nonsense', '0x', '0x1234', `0x${'zz'.repeat(65)}`, 'fake:', 'fake:0x12:00']) {
        expect(await h.signatures.signerOf('Cancel order 01ABC', signature), signature).toBeNull();
      }
    });
  });
}
