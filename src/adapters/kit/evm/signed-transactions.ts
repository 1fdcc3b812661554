/**
 * Transactions the service signs itself (payouts, token deployments, deliveries, pulls), in the
 * outbox shape: sign with a known nonce and hash → the caller records them → broadcast (again
 * and again, idempotently) → follow to a receipt.
 *
 * Every signer of one account in this process takes its nonces from one queue (a `NonceQueue`
 * the composition root builds once per key and hands to the payout sender, the token issuer and
 * the in-process facilitator), so a burst of settlements and payouts on one key never hands out
 * a nonce twice.
 */
import {
  createPublicClient,
  createWalletClient,
  keccak256,
  parseTransaction,
  TransactionNotFoundError,
  TransactionReceiptNotFoundError,
  type Hex,
  type TransactionReceipt,
  type PublicClient,
  type WalletClient,
} from 'viem';
import { privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts';
import { createNonceManager, jsonRpc, type NonceManager } from 'viem/nonce';
import { NETWORKS, type Network } from '../../../domain/network.js';
import type { TransactionSender, TransferStatus } from '../../../ports/transaction-sender.js';
import { viemChain } from './viem-chain.js';
import { rpcTransport } from './rpc-transport.js';

/** Hands out an account's nonces per chain: the chain's pending count, plus those handed out since. */
export type NonceQueue = NonceManager;

export function newNonceQueue(): NonceQueue {
  return createNonceManager({ source: jsonRpc() });
}

export interface SignedTransaction {
  rawTx: Hex;
  txHash: Hex;
  nonce: number;
}

export interface Call {
  to: Hex;
  data: Hex;
  gas: bigint;
}

/** EIP-1559 fees to offer; asked of the node when a signature is not given them. */
export interface Fees {
  maxFeePerGas: bigint;
  maxPriorityFeePerGas: bigint;
}

/**
 * `confirmed`: mined and succeeded (with its effect, where the signer says what that is).
 * `reverted`: mined and failed (nothing moved). `pending`: not mined yet (known to the node, or
 * its nonce not reached). `dropped`: never mined and its nonce is used by another transaction, so
 * it can never be mined. `no-effect`: mined as a success without the effect it was signed for.
 */
export type SignedTransactionStatus = 'confirmed' | 'reverted' | 'pending' | 'dropped' | 'no-effect';

/**
 * What a mined, successful transaction of this signer was meant to do, looked for in its receipt
 * (docs/decisions/0066): null when it is there (or nothing particular is expected), else what is
 * missing. `tx`: the transaction as it was signed.
 */
export type EffectCheck = (network: Network, tx: { to?: Hex | null | undefined; data?: Hex | undefined }, receipt: TransactionReceipt) => Promise<string | null> | string | null;

export interface SignedTransactionsOptions {
  /** The key's one queue in this process (see above); a new one when not given. */
  nonces?: NonceQueue;
  /** Per RPC call (default 10 s). */
  timeoutMs?: number;
  /**
   * How many blocks below the head a transaction's nonce must already have been used, with no
   * receipt for it, before it is called dropped (at least 1, the default; decision 0056). A node
   * can show an account's new nonce before it serves the receipts of the block that used it.
   */
  droppedAfterBlocks?: number;
  /** What a successful receipt must show to be `confirmed` (none: success is enough). */
  effect?: EffectCheck;
}

/** What an adapter that signs with a key hands its `SignedTransactions` (and nothing else of its options). */
export type SignerOptions = Pick<SignedTransactionsOptions, 'nonces' | 'droppedAfterBlocks'>;

const ALREADY_SENT = /already known|known transaction|nonce too low|already imported|replacement transaction underpriced|nonce.*already used/i;

export class SignedTransactions {
  readonly account: PrivateKeyAccount;
  private readonly clients = new Map<Network, { publicClient: PublicClient; wallet: WalletClient }>();

  private readonly nonces: NonceQueue;

  constructor(
    key: Hex,
    private readonly rpcUrls: Partial<Record<Network, string>>,
    options: SignedTransactionsOptions = {},
  ) {
    this.nonces = options.nonces ?? newNonceQueue();
    this.timeoutMs = options.timeoutMs ?? 10_000;
    this.droppedAfterBlocks = BigInt(Math.max(1, options.droppedAfterBlocks ?? 1));
    this.effect = options.effect;
    this.account = privateKeyToAccount(key, { nonceManager: this.nonces });
  }

  private readonly timeoutMs: number;
  private readonly droppedAfterBlocks: bigint;
  private readonly effect: EffectCheck | undefined;

  get address(): Hex {
    return this.account.address;
  }

  client(network: Network) {
    let c = this.clients.get(network);
    if (!c) {
      const url = this.rpcUrls[network];
      if (!url) throw new Error(`no RPC configured for ${network}`);
      const chain = viemChain(network, url);
      const transport = rpcTransport(url, { timeout: this.timeoutMs });
      c = {
        publicClient: createPublicClient({ chain, transport }) as PublicClient,
        wallet: createWalletClient({ chain, transport, account: this.account }),
      };
      this.clients.set(network, c);
    }
    return c;
  }

  /** Signs `call` with the account's next nonce; nothing is sent. */
  async sign(network: Network, call: Call, nonce?: number, fees?: Fees): Promise<SignedTransaction> {
    const { publicClient, wallet } = this.client(network);
    const chainId = NETWORKS[network].chainId;
    const n = nonce ?? (await this.nonces.consume({ address: this.account.address, chainId, client: publicClient }));
    try {
      const request = await wallet.prepareTransactionRequest({
        account: this.account,
        chain: wallet.chain,
        to: call.to,
        data: call.data,
        chainId,
        gas: call.gas,
        nonce: n,
        ...fees,
      });
      // Signed by the key itself: a wallet client's signTransaction asks the node for its chain id
      // on every call, one more RPC per transaction (the chain id is ours, NETWORKS; the chain probe checks the node's).
      const rawTx = await this.account.signTransaction({ ...(request as Parameters<PrivateKeyAccount['signTransaction']>[0]), chainId }, {
        serializer: wallet.chain?.serializers?.transaction,
      });
      return { rawTx, txHash: keccak256(rawTx), nonce: n };
    } catch (e) {
      if (nonce === undefined) this.release(network);
      throw e;
    }
  }

  /**
   * A call's gas and the fees to offer for it now, in one question to the node where it answers
   * `eth_fillTransaction` (viem asks for each apart where it does not). Asked before a nonce is
   * taken, so a call that would revert fails here and leaves no hole in the queue.
   */
  async price(network: Network, to: Hex, data: Hex): Promise<{ call: Call; fees?: Fees }> {
    const { wallet } = this.client(network);
    const request = await wallet.prepareTransactionRequest({ account: this.account, chain: wallet.chain, to, data, parameters: ['gas', 'fees'] });
    const { maxFeePerGas, maxPriorityFeePerGas } = request as { maxFeePerGas?: bigint; maxPriorityFeePerGas?: bigint };
    const fees = typeof maxFeePerGas === 'bigint' && typeof maxPriorityFeePerGas === 'bigint' ? { maxFeePerGas, maxPriorityFeePerGas } : undefined;
    return { call: { to, data, gas: request.gas! }, ...(fees ? { fees } : {}) };
  }

  /**
   * A signed transaction that will never be broadcast (its record was lost): the queue asks the
   * chain again, so the next transaction does not wait behind a hole.
   */
  release(network: Network): void {
    this.nonces.reset({ address: this.account.address, chainId: NETWORKS[network].chainId });
  }

  /** Idempotent: a transaction the chain already knows (or mined) is not an error. */
  async broadcast(network: Network, rawTx: string): Promise<void> {
    try {
      await this.client(network).publicClient.sendRawTransaction({ serializedTransaction: rawTx as Hex });
    } catch (e) {
      if (ALREADY_SENT.test((e as Error).message)) return;
      throw e;
    }
  }

  /**
   * The transaction's receipt, or null while it is not mined. Only "no receipt" means not mined:
   * any other failure (the node is down) throws, so that it never reads as "dropped" and the
   * transaction is never signed and paid again.
   */
  receipt(network: Network, txHash: string): Promise<TransactionReceipt | null> {
    return this.client(network)
      .publicClient.getTransactionReceipt({ hash: txHash as Hex })
      .catch((e: unknown) => {
        if (e instanceof TransactionReceiptNotFoundError) return null;
        throw e;
      });
  }

  /**
   * One call when the transaction is mined (its receipt), two while it is pending (its receipt,
   * the key's nonce count), six to call it dropped (below). A wrong "dropped" is signed again with
   * a new nonce and would pay twice, so every doubt answers `pending`.
   */
  async status(network: Network, txHash: string, rawTx: string): Promise<SignedTransactionStatus> {
    return (await this.look(network, txHash, rawTx)).status;
  }

  /**
   * `status`, with the receipt it read when the transaction is mined (no second call for it).
   * Without `askDropped` a transaction with no receipt is `pending` at once: one call, not two.
   *
   * Dropped means: no receipt, the key's nonce count past its nonce already `droppedAfterBlocks`
   * below the head (so whatever used the nonce is in a block the node has stored with its
   * receipts), still no receipt after that, and the node knows it in no block. A node can show
   * the new count before the block's receipts (anvil does while it stores a block; behind a load
   * balancer one node's count can come before another's receipts), and a count read at `latest`
   * alone took a mined transaction for dropped (decision 0056).
   */
  async look(network: Network, txHash: string, rawTx: string, askDropped = true): Promise<{ status: SignedTransactionStatus; receipt: TransactionReceipt | null }> {
    const { publicClient } = this.client(network);
    const mined = async (receipt: TransactionReceipt) => {
      if (receipt.status !== 'success') return { status: 'reverted' as const, receipt };
      // A success is only what the receipt shows done: a call to an address without code succeeds and does nothing.
      const missing = this.effect ? await this.effect(network, parseTransaction(rawTx as Hex), receipt) : null;
      return { status: missing === null ? ('confirmed' as const) : ('no-effect' as const), receipt };
    };
    const pending = { status: 'pending' as const, receipt: null };
    const receipt = await this.receipt(network, txHash);
    if (receipt) return mined(receipt);
    if (!askDropped) return pending;
    const nonce = parseTransaction(rawTx as Hex).nonce ?? 0;
    const address = this.account.address;
    if ((await publicClient.getTransactionCount({ address, blockTag: 'latest' })) <= nonce) return pending;
    // Its nonce is used: by this transaction, mined since the first look, or by another — then it can never be mined.
    const head = await publicClient.getBlockNumber({ cacheTime: 0 });
    if (head < this.droppedAfterBlocks) return pending;
    // A node without that block's state (anvil just after it loaded a saved chain, a node that
    // keeps few old states) cannot say: not dropped, for now.
    const usedBelow = await publicClient.getTransactionCount({ address, blockNumber: head - this.droppedAfterBlocks }).catch(() => null);
    if (usedBelow === null || usedBelow <= nonce) return pending;
    const again = await this.receipt(network, txHash);
    if (again) return mined(again);
    // Mined in a block whose receipt this node does not serve yet: it is not dropped.
    const known = await publicClient.getTransaction({ hash: txHash as Hex }).catch((e: unknown) => {
      if (e instanceof TransactionNotFoundError) return null;
      throw e;
    });
    return known?.blockNumber != null ? pending : { status: 'dropped', receipt: null };
  }

  /**
   * A transaction the node holds and cannot run, because a nonce below it was given out and
   * never sent (a send refused after its signature, a record lost, a reset queue racing a
   * signature in flight): fills that one nonce with a zero-value transfer to ourselves, and
   * returns it — or null when nothing below `rawTx` is missing. The key's `pending` count names
   * it: the node runs every transaction below that count and holds none it can run at it (anvil
   * and geth count only what can run), so the filler takes no transaction's place the node has.
   * One that was still on its way is refused as taken and signed again by its sender, like any
   * nonce another transaction took. One nonce per call: a wait that finds another fills it next.
   */
  async fillHole(network: Network, rawTx: string): Promise<number | null> {
    const { publicClient } = this.client(network);
    const nonce = parseTransaction(rawTx as Hex).nonce ?? 0;
    const missing = await publicClient.getTransactionCount({ address: this.account.address, blockTag: 'pending' });
    if (missing >= nonce) return null;
    const filler = await this.sign(network, { to: this.account.address, data: '0x', gas: 21_000n }, missing);
    try {
      await publicClient.sendRawTransaction({ serializedTransaction: filler.rawTx });
      return missing;
    } catch (e) {
      if (ALREADY_SENT.test((e as Error).message)) return null; // it arrived meanwhile
      throw e;
    }
  }

  /**
   * A transaction waits behind nonces nobody will fill (a signed transaction whose record was
   * lost, a node that forgot its pool): fill each nonce below it that the node has nothing for
   * with a zero-value transfer to ourselves. A filler never displaces a transaction the node
   * already holds at that nonce (same fee: the node refuses the replacement), and any of ours it
   * does take the place of is seen as `dropped` and signed again — so filling never pays twice.
   */
  async fillNonceGap(network: Network, rawTx: string): Promise<number> {
    const { publicClient } = this.client(network);
    const nonce = parseTransaction(rawTx as Hex).nonce ?? 0;
    const next = await publicClient.getTransactionCount({ address: this.account.address, blockTag: 'latest' });
    let sent = 0;
    for (let n = next; n < nonce; n++) {
      const filler = await this.sign(network, { to: this.account.address, data: '0x', gas: 21_000n }, n);
      try {
        await publicClient.sendRawTransaction({ serializedTransaction: filler.rawTx });
        sent += 1;
      } catch (e) {
        if (!ALREADY_SENT.test((e as Error).message)) throw e;
      }
    }
    return sent;
  }
}

/**
 * The TransactionSender side shared by every adapter that sends what one key signs (payouts,
 * the token issuer, the DEX router): nonces from the key's one queue, idempotent broadcasts,
 * receipts read by the one "not mined" rule, nonce gaps filled.
 */
export abstract class SignedTransactionSender implements TransactionSender {
  protected readonly txs: SignedTransactions;

  constructor(key: Hex, rpcUrls: Partial<Record<Network, string>>, options: SignerOptions = {}) {
    // Only these two: an adapter's other options are not the signer's.
    this.txs = new SignedTransactions(key, rpcUrls, {
      nonces: options.nonces,
      droppedAfterBlocks: options.droppedAfterBlocks,
      effect: (network, tx, receipt) => this.missingEffect(network, tx, receipt),
    });
  }

  /**
   * What a successful receipt of this sender's transaction lacks of what it was signed to do
   * (docs/decisions/0066), or null: nothing (or nothing this sender can tell). `confirmed` needs null.
   */
  protected missingEffect(_network: Network, _tx: Parameters<EffectCheck>[1], _receipt: TransactionReceipt): Promise<string | null> | string | null {
    return null;
  }

  release(network: Network): void {
    this.txs.release(network);
  }

  broadcast(network: Network, rawTx: string): Promise<void> {
    return this.txs.broadcast(network, rawTx);
  }

  status(network: Network, txHash: string, rawTx: string): Promise<TransferStatus> {
    return this.txs.status(network, txHash, rawTx);
  }

  unblock(network: Network, rawTx: string): Promise<number> {
    return this.txs.fillNonceGap(network, rawTx);
  }
}
