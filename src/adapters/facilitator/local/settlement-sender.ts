/**
 * The in-process facilitator's transactions, sent so that a nonce taken elsewhere never fails a
 * payment (docs/decisions/0031). The official exact scheme asks its signer to `writeContract`
 * (transferWithAuthorization) and then waits for that hash's receipt; here the write is signed
 * with a nonce from the settlement key's one queue and sent by us, and
 *
 * - refused because its nonce is taken (another transaction of the key, from anywhere, got there
 *   first): the queue asks the chain again and it is signed again, at once;
 * - accepted but never mined because another transaction took its nonce meanwhile ("dropped",
 *   the outbox's own rule, `SignedTransactions.look`: its nonce used a block deep and no receipt):
 *   the same call is signed again while the scheme waits for the receipt, and the receipt of the
 *   one mined is returned.
 *
 * Signing again is safe: an EIP-3009 authorization moves money once, whatever carries it, and a
 * transaction whose nonce another took can never be mined. `finalHash` tells the facilitator
 * which transaction settled, for the payment's record.
 */
import { concat, encodeFunctionData, WaitForTransactionReceiptTimeoutError, type Abi, type Hex, type TransactionReceipt } from 'viem';
import type { Network } from '../../../domain/network.js';
import { SignedTransactions, type Call, type Fees, type NonceQueue, type SignedTransaction, type SignerOptions } from '../../kit/evm/signed-transactions.js';

const NONCE_TAKEN = /nonce too low|replacement transaction underpriced|nonce.*already used|already used/i;
const ALREADY_KNOWN = /already known|known transaction|already imported/i;
/** A settlement refused for its nonce is signed again at most this many times in a row. */
const MAX_SIGNATURES = 4;
/** Kept at most this long: the scheme asks for a receipt right after its write. */
const KEEP_MS = 10 * 60_000;
/** The first wait before a settlement is looked at again; each next one doubles, up to the poll interval. */
const FIRST_LOOK_AGAIN_MS = 25;

/**
 * How long a settlement not mined at look `round` (0: the look right after it was sent) waits
 * for the next: 25, 50, 100, 200 ms, then every `pollMs`. The devnet mines at once but can answer
 * the send a moment before its block's receipt is there; a flat 250 ms then held half of the
 * paid requests under load for a full interval. On a chain of 2-second blocks it costs ≈ 2 more
 * receipt reads per settlement.
 */
export const lookDelay = (round: number, pollMs: number): number => Math.min(pollMs, FIRST_LOOK_AGAIN_MS * 2 ** round);

export interface WriteContractArgs {
  address: Hex;
  abi: Abi | readonly unknown[];
  functionName: string;
  args?: readonly unknown[];
  dataSuffix?: Hex;
}

export type SettlementLog = (message: string, fields: Record<string, unknown>) => void;

interface Sent {
  network: Network;
  call: Call;
  current: SignedTransaction;
  at: number;
}

export class SettlementSender {
  private readonly txs: SignedTransactions;
  private readonly sent = new Map<string, Sent>();

  constructor(
    key: Hex,
    rpcUrls: Partial<Record<Network, string>>,
    nonces: NonceQueue,
    private readonly options: { pollMs: number; holeAfterMs: number; log: SettlementLog } & Pick<SignerOptions, 'droppedAfterBlocks'>,
  ) {
    this.txs = new SignedTransactions(key, rpcUrls, { nonces, droppedAfterBlocks: options.droppedAfterBlocks });
  }

  get address(): Hex {
    return this.txs.address;
  }

  /** Signs and sends the call; returns its hash (the one the scheme waits for). */
  async writeContract(network: Network, args: WriteContractArgs): Promise<Hex> {
    const data = concat([encodeFunctionData({ abi: args.abi as Abi, functionName: args.functionName, args: args.args ?? [] }), args.dataSuffix ?? '0x']);
    // Gas and fees in one question; a settlement signed again (its nonce taken) asks fees anew.
    const { call, fees } = await this.txs.price(network, args.address, data);
    const signed = await this.send(network, call, fees);
    const now = Date.now();
    for (const [hash, s] of this.sent) if (now - s.at > KEEP_MS) this.sent.delete(hash);
    this.sent.set(signed.txHash, { network, call, current: signed, at: now });
    return signed.txHash;
  }

  /** The receipt of the settlement first sent as `hash` — or of the one that replaced it, dropped. */
  async waitForTransactionReceipt(network: Network, hash: Hex, timeoutMs: number): Promise<TransactionReceipt> {
    const sent = this.sent.get(hash);
    if (!sent) return this.txs.client(network).publicClient.waitForTransactionReceipt({ hash, timeout: timeoutMs, pollingInterval: this.options.pollMs });
    const deadline = Date.now() + timeoutMs;
    let since = Date.now();
    for (let round = 0; ; round++) {
      // Every look reads the receipt; whether the nonce went to another transaction (dropped) is
      // asked every fourth: on a chain of 2-second blocks a settlement is looked at ≈ 11 times
      // (lookDelay), and each full look while it is pending is two calls to the node.
      const { status, receipt } = await this.txs
        .look(network, sent.current.txHash, sent.current.rawTx, round % 4 === 3)
        .catch(() => ({ status: 'pending' as const, receipt: null }));
      if (receipt) return receipt;
      if (status === 'dropped') {
        const dropped = sent.current.txHash;
        sent.current = await this.send(network, sent.call);
        since = Date.now();
        this.options.log('a settlement was dropped (its nonce taken by another transaction); signed again', { network, dropped, txHash: sent.current.txHash });
        continue;
      }
      if (round % 8 === 7) await this.txs.broadcast(network, sent.current.rawTx).catch(() => undefined); // a node that forgot it
      if (round % 4 === 3 && Date.now() - since >= this.options.holeAfterMs) await this.fillHole(network, sent.current.rawTx);
      if (Date.now() >= deadline) throw new WaitForTransactionReceiptTimeoutError({ hash: sent.current.txHash });
      await new Promise((r) => setTimeout(r, lookDelay(round, this.options.pollMs)));
    }
  }

  /**
   * A settlement not mined for `holeAfterMs` may wait behind a nonce of the key that was given out
   * and never sent: every settlement, deployment and delivery of the key would wait behind it
   * until the outbox fills gaps (a minute). Filled here, one nonce per look (SignedTransactions.fillHole).
   */
  private async fillHole(network: Network, rawTx: Hex): Promise<void> {
    const filled = await this.txs.fillHole(network, rawTx).catch(() => null);
    if (filled !== null) this.options.log('a settlement waited behind a nonce never sent; filled it', { network, nonce: filled });
  }

  /** The transaction that settled what was first sent as `hash`. */
  finalHash(hash: string): string {
    return this.sent.get(hash)?.current.txHash ?? hash;
  }

  forget(hash: string): void {
    this.sent.delete(hash);
  }

  /** Signs with the queue's next nonce and sends; a nonce another transaction took is signed again with the next. */
  private async send(network: Network, call: Call, fees?: Fees): Promise<SignedTransaction> {
    const { publicClient } = this.txs.client(network);
    for (let signature = 1; ; signature++) {
      const signed = await this.txs.sign(network, call, undefined, signature === 1 ? fees : undefined);
      try {
        await publicClient.sendRawTransaction({ serializedTransaction: signed.rawTx });
        return signed;
      } catch (e) {
        const message = (e as Error).message;
        if (ALREADY_KNOWN.test(message)) return signed;
        const taken = NONCE_TAKEN.test(message);
        // Refused for anything else, the nonce is a hole: the queue asks the chain again. A nonce
        // another transaction took is none, and resetting the queue then would hand out again the
        // nonces other signers of the key hold and have not sent yet (the outbox records before it
        // broadcasts) — one collision making the next. The queue goes on past it: it asks the chain
        // with every nonce it hands out and never goes below what it handed out last.
        if (!taken) this.txs.release(network);
        if (!taken || signature >= MAX_SIGNATURES) throw e;
        this.options.log('a settlement nonce was taken by another transaction; signed again with the next', { network, nonce: signed.nonce });
      }
    }
  }
}
