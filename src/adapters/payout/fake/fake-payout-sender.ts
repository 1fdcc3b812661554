import { createHash } from 'node:crypto';
import type { Network } from '../../../domain/network.js';
import type { Payout } from '../../../domain/payout.js';
import type { PayoutSender, PreparedTransfer, TransferStatus } from '../../../ports/payout-sender.js';

/**
 * An in-memory "chain" for payouts: a broadcast transaction is mined at once (or per the
 * scripted outcome), and a transaction is mined at most once however often it is broadcast.
 */
export class FakePayoutSender implements PayoutSender {
  readonly transfers: { network: Network; wallet: string; amount: bigint; txHash: string }[] = [];
  broadcasts = 0;
  private readonly mined = new Map<string, 'confirmed' | 'reverted' | 'no-effect'>();
  /** Networks whose payment assets have no code (a chain that is not the books'): a transfer succeeds and moves nothing. */
  private readonly codeless = new Set<Network>();
  private readonly pending = new Map<string, { network: Network; wallet: string; amount: bigint }>();
  /** Scripted drops: the nonce went to another transaction, this one can never be mined. */
  private readonly dropped = new Set<string>();
  private nextOutcome: 'confirmed' | 'reverted' | 'drop' | 'hold' | 'no-effect' = 'confirmed';
  private counter = 0;

  /** The next broadcast transaction is mined reverted, dropped, held pending, or mined as a success that moves nothing. */
  scriptNext(outcome: 'confirmed' | 'reverted' | 'drop' | 'hold' | 'no-effect'): void {
    this.nextOutcome = outcome;
  }

  /** From now on `network`'s payment assets have no code: every transfer there is mined as a success that moves nothing. */
  removeAssetCode(network: Network): void {
    this.codeless.add(network);
  }

  balanceOf(network: Network, wallet: string): bigint {
    return this.transfers
      .filter((t) => t.network === network && t.wallet.toLowerCase() === wallet.toLowerCase())
      .reduce((s, t) => s + t.amount, 0n);
  }

  async prepare(payout: Payout): Promise<PreparedTransfer> {
    this.counter += 1;
    const rawTx = Buffer.from(JSON.stringify({ n: this.counter, network: payout.network, wallet: payout.wallet, amount: payout.amount.toString() })).toString('hex');
    return { rawTx: `0x${rawTx}`, txHash: `0x${createHash('sha256').update(rawTx).digest('hex')}` };
  }

  async broadcast(_network: Network, rawTx: string): Promise<void> {
    this.broadcasts += 1;
    const txHash = `0x${createHash('sha256').update(rawTx.slice(2)).digest('hex')}`;
    if (this.mined.has(txHash) || this.pending.has(txHash) || this.dropped.has(txHash)) return;
    const tx = JSON.parse(Buffer.from(rawTx.slice(2), 'hex').toString()) as { network: Network; wallet: string; amount: string };
    const outcome = this.nextOutcome;
    this.nextOutcome = 'confirmed';
    if (outcome === 'drop') {
      this.dropped.add(txHash);
      return;
    }
    if (outcome === 'hold') {
      this.pending.set(txHash, { network: tx.network, wallet: tx.wallet, amount: BigInt(tx.amount) });
      return;
    }
    const mined = outcome === 'confirmed' && this.codeless.has(tx.network) ? 'no-effect' : outcome;
    this.mined.set(txHash, mined);
    if (mined === 'confirmed') this.transfers.push({ network: tx.network, wallet: tx.wallet, amount: BigInt(tx.amount), txHash });
  }

  releases = 0;
  release(): void {
    this.releases += 1;
  }

  unblocks = 0;
  /** Held transfers are what a gap would hold back: unblocking mines them. */
  async unblock(): Promise<number> {
    this.unblocks += 1;
    const held = [...this.pending.entries()];
    for (const [txHash, tx] of held) {
      this.pending.delete(txHash);
      this.mined.set(txHash, 'confirmed');
      this.transfers.push({ ...tx, txHash });
    }
    return held.length;
  }

  async status(_network: Network, txHash: string): Promise<TransferStatus> {
    // Signed but never broadcast: its nonce is still free, so it can still be mined.
    return this.mined.get(txHash) ?? (this.dropped.has(txHash) ? 'dropped' : 'pending');
  }
}
