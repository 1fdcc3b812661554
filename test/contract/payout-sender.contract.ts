import { describe, expect, it } from 'vitest';
import { TESTNET, type Network } from '../../src/domain/network.js';
import type { PayoutSender } from '../../src/ports/payout-sender.js';
import { payout } from '../support/fixtures.js';
import { pollUntil } from '../support/wait.js';

export interface PayoutSenderHarness {
  sender: PayoutSender;
  balance(network: Network, wallet: string): Promise<bigint>;
  /** Takes the code away from the network's USDC: what a chain that is not the books' has there. */
  removeAssetCode(network: Network): Promise<void>;
}

/** The status once it is no longer pending (a node may answer `pending` briefly), or `pending` at the deadline. */
async function settled(sender: PayoutSender, prepared: { txHash: string; rawTx: string }) {
  const status = async () => {
    const s = await sender.status(TESTNET, prepared.txHash, prepared.rawTx);
    return s === 'pending' ? null : s;
  };
  return (await pollUntil(status, { stepMs: 100 })) ?? 'pending';
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
