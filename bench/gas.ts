/**
 * Gas per paid call, read from the devnet's receipts, not assumed: every transaction mined in a
 * range of blocks, sorted by the contract and function it calls, its `gasUsed` summed.
 *
 *   exact, ours       USDC transferWithAuthorization sent by the service's settlement key
 *   exact, official   the same sent by the @x402/express baseline's key (its own, bench/real.ts)
 *   batch-settlement  every transaction to the x402 batch-settlement contract or its deposit
 *                     collectors: deposits, claims, settles, refunds (a refund that claims the
 *                     channel's last charges is one multicall: `multicall(claimWithSignature+refundWithSignature)`)
 *   other             the rest: the deliveries' token transfers, the token's deployment, …
 *
 * Blocks and receipts are read in JSON-RPC batches (the devnet's proxy takes them), after the
 * rounds: no measured window pays for it.
 */
import { createPublicClient, decodeFunctionData, http, numberToHex, type Abi, type Hex } from 'viem';
import { CONTRACTS } from '../src/adapters/kit/evm/contracts/artifacts.js';
import { DEVNET_X402_CONTRACTS } from '../src/adapters/chain/anvil/devnet-constants.js';
import { NETWORKS, TESTNET } from '../src/domain/network.js';

export interface GasKind {
  txs: number;
  gas: number;
  /** Claims: the vouchers (channels) the kind's transactions claimed, all told. */
  vouchers?: number;
}

/** Transactions and gas by kind: `exact ours`, `exact official`, `batch <function>`, `other`. */
export type GasByKind = Record<string, GasKind>;

const BATCH_ADDRESSES = new Map<string, Abi>(
  DEVNET_X402_CONTRACTS.filter((c) => c.name !== 'Permit2' && c.name !== 'X402UptoPermit2Proxy').map((c) => [c.address.toLowerCase(), CONTRACTS[c.name].abi]),
);
const BATCH_ABI = CONTRACTS.X402BatchSettlement.abi;

/** A call's function name — a multicall's is its calls' names inside `multicall(…)` — and the vouchers it claims. */
function callOf(abi: Abi, input: Hex): { name: string; vouchers: number } {
  try {
    const call = decodeFunctionData({ abi, data: input });
    if (call.functionName === 'claim' || call.functionName === 'claimWithSignature') return { name: call.functionName, vouchers: (call.args?.[0] as unknown[]).length };
    if (call.functionName !== 'multicall') return { name: call.functionName, vouchers: 0 };
    const inner = ((call.args?.[0] ?? []) as Hex[]).map((data) => callOf(BATCH_ABI, data));
    return { name: `multicall(${inner.map((c) => c.name).join('+')})`, vouchers: inner.reduce((n, c) => n + c.vouchers, 0) };
  } catch {
    return { name: input.slice(0, 10), vouchers: 0 };
  }
}

interface Tx {
  hash: Hex;
  from: Hex;
  to: Hex | null;
  input: Hex;
}
interface Receipt {
  transactionHash: Hex;
  gasUsed: Hex;
}

/**
 * The gas of every transaction mined in blocks (fromBlock, toBlock] of the testnet devnet at
 * `rpcUrl`, by kind; `officialSender` is the baseline's settlement key's address.
 */
export async function gasByKind(rpcUrl: string, fromBlock: bigint, toBlock: bigint, officialSender: string): Promise<GasByKind> {
  const client = createPublicClient({ transport: http(rpcUrl, { batch: { batchSize: 200 }, timeout: 60_000 }) });
  const usdc = NETWORKS[TESTNET].usdc.toLowerCase();
  const official = officialSender.toLowerCase();
  const out: GasByKind = {};
  const add = (kind: string, gas: number, vouchers = 0) => {
    const k = (out[kind] ??= { txs: 0, gas: 0 });
    k.txs += 1;
    k.gas += gas;
    if (vouchers > 0) k.vouchers = (k.vouchers ?? 0) + vouchers;
  };
  const STEP = 200n;
  for (let start = fromBlock + 1n; start <= toBlock; start += STEP) {
    const numbers: Hex[] = [];
    for (let n = start; n <= toBlock && n < start + STEP; n++) numbers.push(numberToHex(n));
    const [blocks, receipts] = await Promise.all([
      Promise.all(numbers.map((n) => client.request({ method: 'eth_getBlockByNumber', params: [n, true] }) as Promise<{ transactions: Tx[] } | null>)),
      Promise.all(numbers.map((n) => client.request({ method: 'eth_getBlockReceipts' as never, params: [n] as never }) as Promise<Receipt[] | null>)),
    ]);
    const gasOf = new Map(receipts.flatMap((rs) => rs ?? []).map((r) => [r.transactionHash, Number(BigInt(r.gasUsed))]));
    for (const tx of blocks.flatMap((b) => b?.transactions ?? [])) {
      const gas = gasOf.get(tx.hash) ?? 0;
      const to = tx.to?.toLowerCase() ?? '';
      const batchAbi = BATCH_ADDRESSES.get(to);
      const call = batchAbi ? callOf(batchAbi, tx.input) : null;
      if (call) add(`batch ${call.name}`, gas, call.vouchers);
      else if (to === usdc && callOf(CONTRACTS.DevUSDC.abi, tx.input).name === 'transferWithAuthorization') add(tx.from.toLowerCase() === official ? 'exact official' : 'exact ours', gas);
      else add('other', gas);
    }
  }
  return out;
}

/** The kinds whose name starts with `prefix`, summed. */
export function gasOfKinds(g: GasByKind, prefix: string): GasKind {
  return Object.entries(g)
    .filter(([k]) => k.startsWith(prefix))
    .reduce((a, [, v]) => ({ txs: a.txs + v.txs, gas: a.gas + v.gas, vouchers: (a.vouchers ?? 0) + (v.vouchers ?? 0) }), { txs: 0, gas: 0, vouchers: 0 } as GasKind);
}
