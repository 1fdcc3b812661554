import { describe, expect, it } from 'vitest';
import { TESTNET, type Network } from '../../src/domain/network.js';
import type { PayoutSender } from '../../src/ports/payout-sender.js';
import { payout } from '../support/fixtures.js';

export interface PayoutSenderHarness {
  sender: PayoutSender;
  balance(network: Network, wallet: string): Promise<bigint>;
  /** Takes the code away from the network's USDC: what a chain that is not the books' has there. */
  removeAssetCode(network: Network): Promise<void>;
}

/** The status once the chain has had a moment to mine it (a node may answer `pending` briefly). */
async function settled(sender: PayoutSender, prepared: { txHash: string; rawTx: string }) {
  for (let i = 0; i < 50; i++) {
    const status = await sender.status(TESTNET, prepared.txHash, prepared.rawTx);
    if (status !== 'pending') return status;
    await new Promise((r) => setTimeout(r, 100));
  }
  return 'pending';
}

export function payoutSenderContract(name: string, make: () => Promise<PayoutSenderHarness>) {
  describe(`PayoutSender contract: ${name}`, () => {
    it('prepares a transfer whose hash is known before it is broadcast, then delivers it', async () => {
      const h = await make();
      const wallet = '0x000000000000000000000000000000000000beef';
      const p = payout({ wallet, amount: 1_234_567n, network: TESTNET });
      const before = await h.balance(TESTNET, wallet);
      const prepared = await h.sender.prepare(p);
      expect(prepared.txHash).toMatch(/^0x[0-9a-f]{64}$/);
      expect(await h.balance(TESTNET, wallet)).toBe(before);
      await h.sender.broadcast(TESTNET, prepared.rawTx);
      expect(await settled(h.sender, prepared)).toBe('confirmed');
      expect(await h.balance(TESTNET, wallet)).toBe(before + 1_234_567n);
    });

    it('broadcasting the same transfer again never pays twice', async () => {
      const h = await make();
      const wallet = '0x000000000000000000000000000000000000cafe';
      const before = await h.balance(TESTNET, wallet);
      const prepared = await h.sender.prepare(payout({ wallet, amount: 1_000_000n, network: TESTNET }));
      await h.sender.broadcast(TESTNET, prepared.rawTx);
      await h.sender.broadcast(TESTNET, prepared.rawTx);
      await h.sender.broadcast(TESTNET, prepared.rawTx);
      // Mined before the balance is read: a node mines what it accepted after it answers.
      expect(await settled(h.sender, prepared)).toBe('confirmed');
      expect(await h.balance(TESTNET, wallet)).toBe(before + 1_000_000n);
    });

    it('a transfer mined as a success without its Transfer log (USDC without code) is no-effect, never confirmed', async () => {
      const h = await make();
      const wallet = '0x000000000000000000000000000000000000f00d';
      await h.removeAssetCode(TESTNET);
      const prepared = await h.sender.prepare(payout({ wallet, amount: 1_000_000n, network: TESTNET }));
      await h.sender.broadcast(TESTNET, prepared.rawTx);
      expect(await settled(h.sender, prepared)).toBe('no-effect');
      expect(await h.sender.status(TESTNET, prepared.txHash, prepared.rawTx)).toBe('no-effect');
    });

    it('a prepared transfer that was never broadcast is not confirmed', async () => {
      const h = await make();
      const prepared = await h.sender.prepare(payout({ network: TESTNET }));
      expect(await h.sender.status(TESTNET, prepared.txHash, prepared.rawTx)).not.toBe('confirmed');
    });
  });
}
