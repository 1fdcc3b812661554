/**
 * An in-memory Uniswap v2: token/USDC pairs with the pair's exact math (pool.ts), LP minted as
 * the pair mints it (√(x·y) − 1000 locked for ever), custody's approvals, deadlines checked
 * against the clock and `amountOutMin` checked like the router checks it, and transactions mined
 * once however often they are broadcast. Outcomes can be scripted (revert, drop, hold pending)
 * and the chain taken offline, like FakeTokenIssuer. Custody is taken to hold whatever it pays in
 * (the devnet suite checks real balances); `trade` is someone else swapping on the pool directly.
 */
import { getAddress, getContractAddress, type Hex } from 'viem';
import { NETWORKS, type Network } from '../../../domain/network.js';
import { getAmountOut } from '../../../domain/pool.js';
import type { Clock } from '../../../ports/clock.js';
import type { AddLiquidity, DexRouter, PoolState, SwapExactIn, SwapOutcome } from '../../../ports/dex-router.js';
import type { PreparedTransaction, TransactionStatus } from '../../../ports/token-issuer.js';
import { FakeMempool, type FakeTx as FakeTxOf, type ScriptedOutcome } from '../../shared/fake-mempool.js';

export type ScriptedDexOutcome = ScriptedOutcome;

const DEVNET_CUSTODY = '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266';
const ROUTER = '0x00000000000000000000000000000000000d3c01';
const MINIMUM_LIQUIDITY = 1000n;

interface Pair {
  address: Hex;
  usd: bigint;
  tokens: bigint;
  lp: Map<string, bigint>;
}

type Payload =
  | { kind: 'approve'; asset: string; amount: string }
  | { kind: 'add'; token: string; tokenAmount: string; usdAmount: string; to: string; deadline: string }
  | { kind: 'swap'; tokenIn: string; tokenOut: string; amountIn: string; amountOutMin: string; to: string; deadline: string };
type FakeTx = FakeTxOf<Payload>;

const lower = (a: string) => a.toLowerCase();

function sqrt(n: bigint): bigint {
  if (n < 2n) return n;
  let x = n;
  let y = (x + 1n) / 2n;
  while (y < x) {
    x = y;
    y = (x + n / x) / 2n;
  }
  return x;
}

export class FakeDexRouter implements DexRouter {
  private readonly pairs = new Map<string, Pair>();
  private readonly allowances = new Map<string, bigint>();
  private readonly outcomes = new Map<string, SwapOutcome>();
  private readonly custodyAddress: Hex;
  /** Custody's transactions: nonces, mempool, scripted outcomes, offline. */
  private readonly chain = new FakeMempool<Payload>((tx, txHash) => this.execute(txHash, tx));

  constructor(private readonly options: { clock: Clock; custody?: string; networks?: Network[] }) {
    this.custodyAddress = getAddress(options.custody ?? DEVNET_CUSTODY);
  }

  get broadcasts(): number {
    return this.chain.broadcasts;
  }

  scriptNext(outcome: ScriptedDexOutcome): void {
    this.chain.scriptNext(outcome);
  }

  setOffline(offline: boolean): void {
    this.chain.offline = offline;
  }

  /** Someone else swaps `amountIn` of one side on the pool directly (not through the service). */
  trade(network: Network, token: string, side: 'buy' | 'sell', amountIn: bigint): bigint {
    const p = this.pair(network, token);
    if (!p) throw new Error('fake dex: no pair');
    return side === 'buy' ? this.swapOn(p, 'usd', amountIn) : this.swapOn(p, 'tokens', amountIn);
  }

  supports(network: Network): boolean {
    return this.options.networks === undefined || this.options.networks.includes(network);
  }

  custody(_network: Network): Hex {
    return this.custodyAddress;
  }

  router(_network: Network): Hex {
    return getAddress(ROUTER);
  }

  usdc(network: Network): Hex {
    return getAddress(NETWORKS[network].usdc);
  }

  async pairOf(network: Network, token: string): Promise<Hex | null> {
    this.reachable();
    return this.pair(network, token)?.address ?? null;
  }

  async reserves(network: Network, token: string): Promise<PoolState | null> {
    this.reachable();
    const p = this.pair(network, token);
    return p && p.usd > 0n && p.tokens > 0n ? { pair: p.address, usd: p.usd, tokens: p.tokens } : null;
  }

  async allowance(network: Network, asset: string): Promise<bigint> {
    this.reachable();
    return this.allowances.get(`${network}|${lower(asset)}`) ?? 0n;
  }

  async balanceOf(network: Network, asset: string, holder: string): Promise<bigint> {
    this.reachable();
    const p = [...this.pairs.values()].find((x) => lower(x.address) === lower(asset));
    return p?.lp.get(lower(holder)) ?? 0n;
  }

  prepareApprove(network: Network, asset: string, amount: bigint): Promise<PreparedTransaction> {
    return this.prepare(network, { kind: 'approve', asset: getAddress(asset), amount: amount.toString() });
  }

  prepareAddLiquidity(network: Network, a: AddLiquidity): Promise<PreparedTransaction> {
    return this.prepare(network, {
      kind: 'add',
      token: getAddress(a.token),
      tokenAmount: a.tokenAmount.toString(),
      usdAmount: a.usdAmount.toString(),
      to: getAddress(a.to),
      deadline: a.deadline.toString(),
    });
  }

  prepareSwap(network: Network, s: SwapExactIn): Promise<PreparedTransaction> {
    return this.prepare(network, {
      kind: 'swap',
      tokenIn: getAddress(s.tokenIn),
      tokenOut: getAddress(s.tokenOut),
      amountIn: s.amountIn.toString(),
      amountOutMin: s.amountOutMin.toString(),
      to: getAddress(s.to),
      deadline: s.deadline.toString(),
    });
  }

  async swapOutcome(_network: Network, txHash: string): Promise<SwapOutcome | null> {
    this.reachable();
    return this.outcomes.get(lower(txHash)) ?? null;
  }

  release(network: Network): void {
    this.chain.release(network);
  }

  broadcast(network: Network, rawTx: string): Promise<void> {
    return this.chain.broadcast(network, rawTx);
  }

  status(network: Network, txHash: string, rawTx: string): Promise<TransactionStatus> {
    return this.chain.status(network, txHash, rawTx);
  }

  unblock(network: Network): Promise<number> {
    return this.chain.unblock(network);
  }

  private prepare(network: Network, payload: Payload): Promise<PreparedTransaction> {
    return this.chain.prepare(network, payload);
  }

  private reachable(): void {
    this.chain.reachable();
  }

  /** Runs `tx` as the router would; false = reverted (nothing changed). */
  private execute(txHash: string, tx: FakeTx): boolean {
    if (tx.kind === 'approve') {
      this.allowances.set(`${tx.network}|${lower(tx.asset)}`, BigInt(tx.amount));
      return true;
    }
    const now = BigInt(Math.floor(this.options.clock.now().getTime() / 1000));
    if (BigInt(tx.deadline) < now) return false; // UniswapV2Router: EXPIRED
    const usdc = this.usdc(tx.network);
    if (tx.kind === 'add') {
      const tokenAmount = BigInt(tx.tokenAmount);
      const usdAmount = BigInt(tx.usdAmount);
      if (!this.allowed(tx.network, tx.token, tokenAmount) || !this.allowed(tx.network, usdc, usdAmount)) return false;
      let p = this.pair(tx.network, tx.token);
      // An existing pool at another ratio would add less than asked: minimums = amounts, so it reverts.
      if (p && p.usd > 0n && p.usd * tokenAmount !== p.tokens * usdAmount) return false;
      if (!p) {
        p = { address: getContractAddress({ from: ROUTER, nonce: BigInt(this.pairs.size + 1) }), usd: 0n, tokens: 0n, lp: new Map() };
        this.pairs.set(`${tx.network}|${lower(tx.token)}`, p);
      }
      const minted = sqrt(tokenAmount * usdAmount) - MINIMUM_LIQUIDITY;
      if (p.usd !== 0n || minted <= 0n) return false;
      p.usd += usdAmount;
      p.tokens += tokenAmount;
      p.lp.set(lower(tx.to), (p.lp.get(lower(tx.to)) ?? 0n) + minted);
      p.lp.set('0x0000000000000000000000000000000000000000', MINIMUM_LIQUIDITY);
      this.allowances.set(`${tx.network}|${lower(tx.token)}`, (this.allowances.get(`${tx.network}|${lower(tx.token)}`) ?? 0n) - tokenAmount);
      this.allowances.set(`${tx.network}|${lower(usdc)}`, (this.allowances.get(`${tx.network}|${lower(usdc)}`) ?? 0n) - usdAmount);
      return true;
    }
    const amountIn = BigInt(tx.amountIn);
    const usdIn = lower(tx.tokenIn) === lower(usdc);
    const p = this.pair(tx.network, usdIn ? tx.tokenOut : tx.tokenIn);
    if (!p || p.usd === 0n || !this.allowed(tx.network, tx.tokenIn, amountIn)) return false;
    const out = getAmountOut(amountIn, usdIn ? p.usd : p.tokens, usdIn ? p.tokens : p.usd);
    if (out < BigInt(tx.amountOutMin)) return false; // UniswapV2Router: INSUFFICIENT_OUTPUT_AMOUNT
    this.allowances.set(`${tx.network}|${lower(tx.tokenIn)}`, (this.allowances.get(`${tx.network}|${lower(tx.tokenIn)}`) ?? 0n) - amountIn);
    this.swapOn(p, usdIn ? 'usd' : 'tokens', amountIn);
    this.outcomes.set(lower(txHash), { amountIn, amountOut: out });
    return true;
  }

  /** Whether custody's allowance covers `amount` (checked, not spent: the caller spends on success). */
  private allowed(network: Network, asset: string, amount: bigint): boolean {
    return (this.allowances.get(`${network}|${lower(asset)}`) ?? 0n) >= amount;
  }

  private swapOn(p: Pair, side: 'usd' | 'tokens', amountIn: bigint): bigint {
    const out = getAmountOut(amountIn, side === 'usd' ? p.usd : p.tokens, side === 'usd' ? p.tokens : p.usd);
    if (side === 'usd') {
      p.usd += amountIn;
      p.tokens -= out;
    } else {
      p.tokens += amountIn;
      p.usd -= out;
    }
    return out;
  }

  private pair(network: Network, token: string): Pair | undefined {
    return this.pairs.get(`${network}|${lower(token)}`);
  }

}
