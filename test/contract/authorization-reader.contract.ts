import { describe, expect, it } from 'vitest';
import { requirementsFor } from '../../src/app/payments/requirements.js';
import { TESTNET, type Network } from '../../src/domain/network.js';
import type { AuthorizationReader } from '../../src/ports/authorization-reader.js';
import type { Facilitator } from '../../src/ports/facilitator.js';
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
}

const nonceOf = (payload: { payload: unknown }) => (payload.payload as { authorization: { nonce: string } }).authorization.nonce;

export function authorizationReaderContract(name: string, make: () => Promise<AuthorizationReaderHarness>) {
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
  });
}
