import { UptoEvmScheme } from '@x402/evm/upto/client';
import { describe, expect, it } from 'vitest';
import { DEFAULT_SETTINGS } from '../../src/app/kit/default-settings.js';
import { requirementsFor, uptoRequirementsFor } from '../../src/app/payments/requirements.js';
import { TESTNET, type Network } from '../../src/domain/network.js';
import type { AuthorizationReader } from '../../src/ports/authorization-reader.js';
import type { Facilitator, PaymentPayload, PaymentRequirements } from '../../src/ports/facilitator.js';
import type { PrivateKeyAccount } from 'viem/accounts';
import { sign } from './facilitator.contract.js';

export interface AuthorizationReaderHarness {
  reader: AuthorizationReader;
  /** Settles on the same chain the reader reads. */
  facilitator: Facilitator;
  funded(network: Network): PrivateKeyAccount;
  payTo: string;
  /** The payer cancels its authorization on that chain (EIP-3009 cancelAuthorization). */
  cancel(network: Network, wallet: PrivateKeyAccount, nonce: string): Promise<void>;
  /** Where the facilitator settles x402 `upto` payments too (docs/payments.md "Pay up to"); required unless the suite runs with `upto: false`. */
  upto?: {
    /** A funded wallet Permit2 may spend for (its approval made). */
    payer(network: Network): Promise<PrivateKeyAccount>;
    /** The owner spends a Permit2 nonce otherwise (Permit2's invalidateUnorderedNonces). */
    spend(network: Network, wallet: PrivateKeyAccount, nonce: string): Promise<void>;
  };
}

/** An upto payment the official client signs: a Permit2 transfer of at most `maximum`, settled by the service's facilitator. */
async function signUpto(wallet: PrivateKeyAccount, payTo: string, maximum: bigint): Promise<{ payload: PaymentPayload; requirements: PaymentRequirements; nonce: string }> {
  const requirements = uptoRequirementsFor(requirementsFor(TESTNET, maximum, payTo), maximum, DEFAULT_SETTINGS.upto!.facilitatorAddress[TESTNET]);
  const { payload } = await new UptoEvmScheme(wallet).createPaymentPayload(2, requirements as never);
  const nonce = `0x${BigInt((payload as { permit2Authorization: { nonce: string } }).permit2Authorization.nonce).toString(16).padStart(64, '0')}`;
  return { payload: { x402Version: 2, accepted: requirements, payload: payload as Record<string, unknown> }, requirements, nonce };
}

const nonceOf = (payload: { payload: unknown }) => (payload.payload as { authorization: { nonce: string } }).authorization.nonce;

/** `upto: false`: the harness's facilitator does not settle upto payments (the HTTP facilitator's server registers exact only). */
export function authorizationReaderContract(name: string, make: () => Promise<AuthorizationReaderHarness>, options: { upto: boolean } = { upto: true }) {
  describe(`AuthorizationReader contract: ${name}`, () => {
    it('an authorization is unused until settled, then used with the settling transaction', async () => {
      const h = await make();
      const wallet = h.funded(TESTNET);
      const r = requirementsFor(TESTNET, 10_000n, h.payTo);
      const payload = await sign(wallet, r);
      const before = await h.reader.authorization(TESTNET, wallet.address, nonceOf(payload));
      expect(before).toMatchObject({ state: 'unused', transaction: null });
      // The block the state was read at is now, give or take the devnet's clock.
      expect(Math.abs(Number(before.blockTime) - Date.now() / 1000)).toBeLessThan(600);
      const settled = await h.facilitator.settle(payload, r);
      expect(settled.success).toBe(true);
      expect(await h.reader.authorization(TESTNET, wallet.address, nonceOf(payload))).toMatchObject({
        state: 'used',
        transaction: settled.transaction,
      });
    });

    it('a cancelled authorization reads as cancelled, not used', async () => {
      const h = await make();
      const wallet = h.funded(TESTNET);
      const r = requirementsFor(TESTNET, 10_000n, h.payTo);
      const payload = await sign(wallet, r);
      await h.cancel(TESTNET, wallet, nonceOf(payload));
      expect(await h.reader.authorization(TESTNET, wallet.address, nonceOf(payload))).toMatchObject({ state: 'cancelled', transaction: null });
      expect((await h.facilitator.settle(payload, r)).success).toBe(false);
    });

    it.runIf(options.upto)('an upto transfer’s Permit2 nonce is unused until settled; settled for less than its maximum, used with the settling transaction', async () => {
      const h = await make();
      const wallet = await h.upto!.payer(TESTNET);
      const { payload, requirements, nonce } = await signUpto(wallet, h.payTo, 30_000n);
      const read = (amount: bigint, to = h.payTo) => h.reader.permit2Transfer(TESTNET, { owner: wallet.address, nonce, to, amount });
      expect(await read(12_345n)).toMatchObject({ state: 'unused', transaction: null });
      expect((await h.facilitator.verify(payload, requirements)).isValid).toBe(true);
      const settled = await h.facilitator.settle(payload, { ...requirements, amount: '12345' });
      expect(settled).toMatchObject({ success: true, amount: '12345' });
      expect(await read(12_345n)).toMatchObject({ state: 'used', transaction: settled.transaction });
      // Its nonce is spent, but no settlement of another amount or to another wallet spent it: nothing was paid so.
      expect(await read(30_000n)).toMatchObject({ state: 'cancelled', transaction: null });
      expect(await read(12_345n, wallet.address)).toMatchObject({ state: 'cancelled', transaction: null });
      // An EIP-3009 authorization of the same nonce value is another thing: unused.
      expect(await h.reader.authorization(TESTNET, wallet.address, nonce)).toMatchObject({ state: 'unused' });
    });

    it.runIf(options.upto)('a Permit2 nonce its owner spent otherwise reads cancelled, and the transfer can no longer be settled', async () => {
      const h = await make();
      const wallet = await h.upto!.payer(TESTNET);
      const { payload, requirements, nonce } = await signUpto(wallet, h.payTo, 30_000n);
      await h.upto!.spend(TESTNET, wallet, nonce);
      expect(await h.reader.permit2Transfer(TESTNET, { owner: wallet.address, nonce, to: h.payTo, amount: 30_000n })).toMatchObject({ state: 'cancelled', transaction: null });
      expect((await h.facilitator.settle(payload, requirements)).success).toBe(false);
    });
  });
}
