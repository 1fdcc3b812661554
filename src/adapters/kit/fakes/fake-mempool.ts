/**
 * One account's transactions on an in-memory chain, for the fakes that send transactions
 * (FakeTokenIssuer, FakeDexRouter): nonces handed out and released as a node would, a mempool
 * that mines each transaction once however often it is broadcast, outcomes that can be scripted
 * (revert, drop — another transaction took its nonce —, hold pending until `unblock`, mined as a
 * success that did nothing — a chain that is not the books') and an RPC that can be taken offline.
 * What a transaction does when mined is the owner's `execute`.
 */
import { keccak256, toHex, type Hex } from 'viem';
import type { Network } from '../../../domain/network.js';
import type { PreparedTransaction, TransactionStatus } from '../../../ports/token-issuer.js';

export type ScriptedOutcome = 'confirmed' | 'reverted' | 'drop' | 'hold' | 'no-effect';

/** `txNonce`: the sending account's nonce (a payload may have a `nonce` of its own). */
export type FakeTx<P> = P & { n: number; network: Network; txNonce: number };

export class FakeMempool<P extends object> {
  broadcasts = 0;
  releases = 0;
  unblocks = 0;
  offline = false;
  private nextOutcome: ScriptedOutcome = 'confirmed';
  private counter = 0;
  private readonly mined = new Map<string, 'confirmed' | 'reverted' | 'no-effect'>();
  private readonly held = new Map<string, FakeTx<P>>();
  private readonly dropped = new Set<string>();
  private readonly usedNonces = new Map<Network, Set<number>>();
  private readonly nextNonce = new Map<Network, number>();
  /** One transaction per block, numbered in mining order. */
  private readonly blocks = new Map<string, bigint>();

  /**
   * `execute` runs a mined transaction; false = reverted (it must then have changed nothing),
   * `no-effect` = succeeded and did nothing (a call to an address without code).
   */
  constructor(private readonly execute: (tx: FakeTx<P>, txHash: string) => boolean | 'no-effect' | Promise<boolean | 'no-effect'>) {}

  /** The next broadcast transaction is mined reverted, dropped (never mined), held pending until `unblock`, or mined as a success that does nothing. */
  scriptNext(outcome: ScriptedOutcome): void {
    this.nextOutcome = outcome;
  }

  /** While offline every call that needs the chain throws, as with an unreachable RPC. */
  reachable(): void {
    if (this.offline) throw new Error('fake chain: RPC unreachable');
  }

  async prepare(network: Network, payload: P): Promise<PreparedTransaction> {
    this.reachable();
    this.counter += 1;
    const nonce = this.nextNonce.get(network) ?? 0;
    this.nextNonce.set(network, nonce + 1);
    const tx = { ...payload, n: this.counter, network, txNonce: nonce } as FakeTx<P>;
    const rawTx = toHex(JSON.stringify(tx));
    return { rawTx, txHash: keccak256(rawTx) };
  }

  /** The next nonce is the chain's again: one past the highest mined or pending. */
  release(network: Network): void {
    this.releases += 1;
    const taken = [...(this.usedNonces.get(network) ?? []), ...[...this.held.values()].filter((t) => t.network === network).map((t) => t.txNonce)];
    this.nextNonce.set(network, taken.length === 0 ? 0 : Math.max(...taken) + 1);
  }

  async broadcast(network: Network, rawTx: string): Promise<void> {
    this.reachable();
    this.broadcasts += 1;
    const txHash = keccak256(rawTx as Hex);
    const tx = this.decode(rawTx);
    // Known, mined, or its nonce taken: what a node answers "already known" / "nonce too low" to.
    if (this.mined.has(txHash) || this.held.has(txHash) || this.dropped.has(txHash) || this.nonces(network).has(tx.txNonce)) return;
    const outcome = this.nextOutcome;
    this.nextOutcome = 'confirmed';
    if (outcome === 'drop') {
      // What dropping means on chain: another transaction took its nonce.
      this.dropped.add(txHash);
      this.nonces(network).add(tx.txNonce);
    } else if (outcome === 'hold') this.held.set(txHash, tx);
    else if (outcome === 'no-effect') this.mineWithoutEffect(txHash, tx);
    else await this.mine(txHash, tx, outcome === 'reverted');
  }

  async status(network: Network, txHash: string, rawTx: string): Promise<TransactionStatus> {
    this.reachable();
    const key = txHash.toLowerCase();
    const mined = this.mined.get(key);
    if (mined) return mined;
    if (this.held.has(key)) return 'pending';
    if (this.dropped.has(key)) return 'dropped';
    return this.nonces(network).has(this.decode(rawTx).txNonce) ? 'dropped' : 'pending';
  }

  /** Held transactions are what a nonce gap would hold back: unblocking mines them. */
  async unblock(network: Network): Promise<number> {
    this.reachable();
    this.unblocks += 1;
    const held = [...this.held.entries()].filter(([, tx]) => tx.network === network);
    for (const [txHash, tx] of held) {
      this.held.delete(txHash);
      await this.mine(txHash, tx, false);
    }
    return held.length;
  }

  blockOf(txHash: string): bigint | null {
    return this.blocks.get(txHash.toLowerCase()) ?? null;
  }

  private decode(rawTx: string): FakeTx<P> {
    return JSON.parse(Buffer.from(rawTx.slice(2), 'hex').toString()) as FakeTx<P>;
  }

  private async mine(txHash: string, tx: FakeTx<P>, revert: boolean): Promise<void> {
    this.nonces(tx.network).add(tx.txNonce);
    const done = revert ? false : await this.execute(tx, txHash);
    this.mined.set(txHash, done === 'no-effect' ? 'no-effect' : done ? 'confirmed' : 'reverted');
    this.blocks.set(txHash, BigInt(this.blocks.size + 1));
  }

  /** Mined as a success without running: what a chain without the contract does with it. */
  private mineWithoutEffect(txHash: string, tx: FakeTx<P>): void {
    this.nonces(tx.network).add(tx.txNonce);
    this.mined.set(txHash, 'no-effect');
    this.blocks.set(txHash, BigInt(this.blocks.size + 1));
  }

  private nonces(network: Network): Set<number> {
    let s = this.usedNonces.get(network);
    if (!s) this.usedNonces.set(network, (s = new Set()));
    return s;
  }
}
