import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { describe, expect, it } from 'vitest';
import { devnetAccount } from '../../src/adapters/chain/anvil/devnet-constants.js';
import { PRODUCTION, TESTNET } from '../../src/domain/network.js';
import type { NetworkDetector } from '../../src/ports/network-detector.js';

/**
 * The world is the devnet's (docs/operations.md): accounts #1–#4 hold mainnet USDC, #5–#9 testnet USDC
 * only. A detector that does not read the devnet must be seeded with that table.
 */
export function networkDetectorContract(name: string, make: () => NetworkDetector) {
  describe(`NetworkDetector contract: ${name}`, () => {
    it('accounts #1–#4 have mainnet history: production', async () => {
      for (const i of [1, 2, 3, 4]) {
        const d = await make().detect(devnetAccount(i).address);
        expect(d.network).toBe(PRODUCTION);
        expect(typeof d.reason).toBe('string');
        expect(d.checkedAt).toBeInstanceOf(Date);
      }
    });

    it('accounts #5–#9 and a fresh wallet have none: testnet', async () => {
      for (const i of [5, 6, 7, 8, 9]) expect((await make().detect(devnetAccount(i).address)).network).toBe(TESTNET);
      expect((await make().detect(privateKeyToAccount(generatePrivateKey()).address)).network).toBe(TESTNET);
    });

    it('addresses are matched in any case', async () => {
      expect((await make().detect(devnetAccount(1).address.toLowerCase())).network).toBe(PRODUCTION);
    });
  });
}
