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
}

export function authorizationReaderContract(name: string, make: () => Promise<AuthorizationReaderHarness>) {
  describe(`AuthorizationReader contract: ${name}`, () => {
    it('an authorization is unused until settled, then used with the settling transaction', async () => {
      const h = await make();
      const wallet = h.funded(TESTNET);
      const r = requirementsFor(TESTNET, 10_000n, h.payTo);
      const payload = await sign(wallet, r);
      const nonce = (payload.payload as { authorization: { nonce: string } }).authorization.nonce;
      expect(await h.reader.authorization(TESTNET, wallet.address, nonce)).toEqual({ used: false, transaction: null });
      const settled = await h.facilitator.settle(payload, r);
      expect(settled.success).toBe(true);
      expect(await h.reader.authorization(TESTNET, wallet.address, nonce)).toEqual({ used: true, transaction: settled.transaction });
    });
  });
}
