/**
 * What every VoucherSignatures answers (docs/payments.md "Pay once, call many"): one channel id per
 * configuration and network, another for any other field; the checksummed signer of a voucher it
 * signed, never for another channel or amount, and null — not an exception — for what is no
 * signature.
 */
import { describe, expect, it } from 'vitest';
import type { ChannelConfig } from '../../src/domain/channel.js';
import { PRODUCTION, TESTNET } from '../../src/domain/network.js';
import type { VoucherSignatures } from '../../src/ports/signatures.js';

export interface VoucherSignaturesHarness {
  vouchers: VoucherSignatures;
  /** `wallet`'s voucher of `max` on `channelId` (testnet), made as this adapter's signatures are. */
  sign(wallet: 'alice' | 'mallory', channelId: string, max: bigint): Promise<string>;
  address(wallet: 'alice' | 'mallory'): string;
}

export function voucherSignaturesContract(name: string, make: () => Promise<VoucherSignaturesHarness>) {
  describe(`VoucherSignatures contract: ${name}`, () => {
    const config = (h: VoucherSignaturesHarness): ChannelConfig => ({
      payer: h.address('alice'),
      payerAuthorizer: h.address('alice'),
      receiver: '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266',
      receiverAuthorizer: '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266',
      token: '0x036CbD53842c5426634e7929541eC2318f3dCF7e',
      withdrawDelay: 900,
      salt: `0x${'00'.repeat(32)}`,
    });

    it('a channel id is one per configuration and network, lower-case hex, another for any other field', async () => {
      const h = await make();
      const id = h.vouchers.channelId(config(h), TESTNET);
      expect(id).toMatch(/^0x[0-9a-f]{64}$/);
      expect(h.vouchers.channelId(config(h), TESTNET)).toBe(id);
      expect(h.vouchers.channelId(config(h), PRODUCTION)).not.toBe(id);
      expect(h.vouchers.channelId({ ...config(h), salt: `0x${'00'.repeat(31)}01` }, TESTNET)).not.toBe(id);
      expect(h.vouchers.channelId({ ...config(h), withdrawDelay: 901 }, TESTNET)).not.toBe(id);
    });

    it('a voucher names its signer; never for another channel or amount', async () => {
      const h = await make();
      const id = h.vouchers.channelId(config(h), TESTNET);
      const signature = await h.sign('alice', id, 5_000n);
      expect(await h.vouchers.voucherSigner({ channelId: id, maxClaimableAmount: 5_000n, signature }, TESTNET)).toBe(h.address('alice'));
      expect(await h.vouchers.voucherSigner({ channelId: id, maxClaimableAmount: 5_001n, signature }, TESTNET)).not.toBe(h.address('alice'));
      expect(await h.vouchers.voucherSigner({ channelId: `0x${'ab'.repeat(32)}`, maxClaimableAmount: 5_000n, signature }, TESTNET)).not.toBe(h.address('alice'));
      const mallory = await h.sign('mallory', id, 5_000n);
      expect(await h.vouchers.voucherSigner({ channelId: id, maxClaimableAmount: 5_000n, signature: mallory }, TESTNET)).toBe(h.address('mallory'));
    });

    it('what is no signature names nobody, never an exception', async () => {
      const h = await make();
      const id = h.vouchers.channelId(config(h), TESTNET);
      for (const signature of ['', 'nonsense', '0x', '0x1234', `0x${'zz'.repeat(65)}`, 'fake:', 'fake:0x12:00']) {
        expect(await h.vouchers.voucherSigner({ channelId: id, maxClaimableAmount: 1n, signature }, TESTNET), signature).toBeNull();
      }
    });
  });
}
