/**
 * An in-memory Uniswap v2: token/USDC pairs with the pair's exact math (pool.ts), LP minted as
 * the pair mints it (√(x·y) − 1000 locked for ever), custody's approvals, deadlines checked
 * against the clock and `amountOutMin` checked like the router checks it, graduation seeds as
 * LaunchFactory.seedPool does them (domain/pool.ts planPoolSeed), and transactions mined
 * once however often they are broadcast. Outcomes can be scripted (revert, drop, hold pending)
 * and the chain taken offline, like FakeTokenIssuer. Custody is taken to hold whatever it pays in
 * (the devnet suite checks real balances); `trade` is someone else swapping on the pool directly,
 * `fillPair` someone creating and filling the pair before graduation.
 */
import { getAddress, getContractAddress, type Hex } from 'viem';
import { NETWORKS, type Network } from '../../../domain/network.js';
import { getAmountOut, isqrt, planPoolSeed } from '../../../domain/pool.js';
import type { Clock } from '../../../ports/clock.js';
import type { DexRouter, PoolState, SeedOutcome, SeedPool, SwapExactIn, SwapOutcome } from '../../../ports/dex-router.js';
import type { PreparedTransaction, TransactionStatus } from '../../../ports/token-issuer.js';
import { FakeMempool, type FakeTx as FakeTxOf, type ScriptedOutcome } from '../../kit/fakes/fake-mempool.js';

export type ScriptedDexOutcome = ScriptedOutcome;

const DEVNET_CUSTODY = '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266';
const ROUTER = '0x00000000000000000000000000000000000d3c01';
const SEEDER = '0x00000000000000000000000000000000000d3c02';
const ZERO = '0x0000000000000000000000000000000000000000';
const MINIMUM_LIQUIDITY = 1000n;

interface Pair {
  address: Hex;
  usd: bigint;
  tokens: bigint;
  lp: Map<string, bigint>;
}

type Payload =
  | { kind: 'approve'; asset: string; spender: string; amount: string }
  | { kind: 'seed'; token: string; tokenAmount: string; usdAmount: string; lockTo: string }
  | { kind: 'swap'; tokenIn: string; tokenOut: string; amountIn: string; amountOutMin: string; to: string; deadline: string };
type FakeTx = FakeTxOf<Payload>;

const lower = (a: string) => a.toLowerCase();

export class FakeDexRouter implements DexRouter {
  private readonly pairs = new Map<string, Pair>();
  private readonly allowances = new Map<string, bigint>();
  private readonly outcomes = new Map<string, SwapOutcome>();
  private readonly seeds = new Map<string, SeedOutcome>();
  private readonly custodyAddress: Hex;
  /** Custody's transactions: nonces, mempool, scripted outcomes, offline. */
  private readonly chain = new FakeMempool<Payload>((tx, txHash) => this.execute(txHash, tx));

  constructor(private readonly options: { clock: Clock; custody?: string; networks?: Network[] }) {
    this.custodyAddress = getAddress(options.custody ?? DEVNET_CUSTODY);
  }

  get broadcasts(): number {
    return this.chain.broadcasts;
  }

  /** Networks whose router has no code (a chain that is not the books'): a swap there succeeds and does nothing. */
  private readonly routerGone = new Set<Network>();

  /** Takes the router's code away on `network`: what a chain that is not the books' has there. */
  removeRouterCode(network: Network): void {
    this.routerGone.add(network);
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

  /**
   * Someone creates the pair before graduation and puts `tokens` and `usd` in it: sent and
   * `sync`ed (no LP tokens: `lpTo` omitted), or added as liquidity minted to `lpTo`.
   */
  fillPair(network: Network, token: string, fill: { tokens: bigint; usd: bigint; lpTo?: string }): void {
    const p = this.pair(network, token) ?? this.createPair(network, token);
    p.tokens += fill.tokens;
    p.usd += fill.usd;
    if (fill.lpTo) this.mint(p, fill.lpTo, isqrt(fill.tokens * fill.usd) - MINIMUM_LIQUIDITY);
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

  seeder(_network: Network): Hex {
    return getAddress(SEEDER);
  }

  async allowance(network: Network, asset: string, spender: string): Promise<bigint> {
    this.reachable();
    return this.allowances.get(this.allowanceKey(network, asset, spender)) ?? 0n;
  }

  async balanceOf(network: Network, asset: string, holder: string): Promise<bigint> {
    this.reachable();
    const p = [...this.pairs.values()].find((x) => lower(x.address) === lower(asset));
    return p?.lp.get(lower(holder)) ?? 0n;
  }

  prepareApprove(network: Network, asset: string, spender: string, amount: bigint): Promise<PreparedTransaction> {
    return this.prepare(network, { kind: 'approve', asset: getAddress(asset), spender: getAddress(spender), amount: amount.toString() });
  }

  prepareSeedPool(network: Network, a: SeedPool): Promise<PreparedTransaction> {
    return this.prepare(network, {
      kind: 'seed',
      token: getAddress(a.token),
      tokenAmount: a.tokenAmount.toString(),
      usdAmount: a.usdAmount.toString(),
      lockTo: getAddress(a.lockTo),
    });
  }

  async seedOutcome(_network: Network, txHash: string): Promise<SeedOutcome | null> {
    this.reachable();
    return this.seeds.get(lower(txHash)) ?? null;
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

  /** The fake's pairs hold no unsynced balance: what it swapped is what it reports. */
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
  private execute(txHash: string, tx: FakeTx): boolean | 'no-effect' {
    if (tx.kind === 'swap' && this.routerGone.has(tx.network)) return 'no-effect';
    if (tx.kind === 'approve') {
      this.allowances.set(this.allowanceKey(tx.network, tx.asset, tx.spender), BigInt(tx.amount));
      return true;
    }
    const usdc = this.usdc(tx.network);
    if (tx.kind === 'seed') return this.seed(txHash, tx.network, tx, usdc);
    const now = BigInt(Math.floor(this.options.clock.now().getTime() / 1000));
    if (BigInt(tx.deadline) < now) return false; // UniswapV2Router: EXPIRED
    const amountIn = BigInt(tx.amountIn);
    const usdIn = lower(tx.tokenIn) === lower(usdc);
    const p = this.pair(tx.network, usdIn ? tx.tokenOut : tx.tokenIn);
    if (!p || p.usd === 0n || !this.allowed(tx.network, tx.tokenIn, ROUTER, amountIn)) return false;
    const out = getAmountOut(amountIn, usdIn ? p.usd : p.tokens, usdIn ? p.tokens : p.usd);
    if (out < BigInt(tx.amountOutMin)) return false; // UniswapV2Router: INSUFFICIENT_OUTPUT_AMOUNT
    this.spend(tx.network, tx.tokenIn, ROUTER, amountIn);
    this.swapOn(p, usdIn ? 'usd' : 'tokens', amountIn);
    this.outcomes.set(lower(txHash), { amountIn, amountOut: out });
    return true;
  }

  /** LaunchFactory.seedPool: pulls both amounts, corrects the pair's price, adds, locks the rest. */
  private seed(txHash: string, network: Network, tx: Extract<Payload, { kind: 'seed' }>, usdc: string): boolean {
    const target = { tokens: BigInt(tx.tokenAmount), usd: BigInt(tx.usdAmount) };
    if (!this.allowed(network, tx.token, SEEDER, target.tokens) || !this.allowed(network, usdc, SEEDER, target.usd)) return false;
    const p = this.pair(network, tx.token) ?? this.createPair(network, tx.token);
    const plan = planPoolSeed({ tokens: p.tokens, usd: p.usd }, target);
    const swapped = plan.swap
      ? plan.swap.side === 'sell-tokens'
        ? { tokens: p.tokens + plan.swap.amountIn, usd: p.usd - plan.swap.amountOut }
        : { tokens: p.tokens - plan.swap.amountOut, usd: p.usd + plan.swap.amountIn }
      : { tokens: p.tokens, usd: p.usd };
    const supply = [...p.lp.values()].reduce((a, b) => a + b, 0n);
    const liquidity =
      supply === 0n
        ? isqrt(plan.deposit.tokens * plan.deposit.usd) - MINIMUM_LIQUIDITY
        : [(plan.deposit.tokens * supply) / swapped.tokens, (plan.deposit.usd * supply) / swapped.usd].reduce((a, b) => (a < b ? a : b));
    if (liquidity <= 0n) return false; // UniswapV2: INSUFFICIENT_LIQUIDITY_MINTED
    p.tokens = plan.after.tokens;
    p.usd = plan.after.usd;
    this.mint(p, tx.lockTo, liquidity);
    this.spend(network, tx.token, SEEDER, target.tokens);
    this.spend(network, usdc, SEEDER, target.usd);
    this.seeds.set(lower(txHash), {
      pair: p.address,
      tokenReserve: p.tokens,
      usdReserve: p.usd,
      liquidity,
      tokensLocked: plan.tokensLocked,
      usdReturned: plan.usdReturned,
    });
    return true;
  }

  /** LP minted as the pair mints it: the first mint locks MINIMUM_LIQUIDITY at the zero address. */
  private mint(p: Pair, to: string, liquidity: bigint): void {
    if (![...p.lp.values()].some((v) => v > 0n)) p.lp.set(ZERO, MINIMUM_LIQUIDITY);
    p.lp.set(lower(to), (p.lp.get(lower(to)) ?? 0n) + liquidity);
  }

  private createPair(network: Network, token: string): Pair {
    const p: Pair = { address: getContractAddress({ from: ROUTER, nonce: BigInt(this.pairs.size + 1) }), usd: 0n, tokens: 0n, lp: new Map() };
    this.pairs.set(`${network}|${lower(token)}`, p);
    return p;
  }

  private allowanceKey(network: Network, asset: string, spender: string): string {
    return `${network}|${lower(asset)}|${lower(spender)}`;
  }

  /** Whether custody's allowance covers `amount` (checked, not spent: the caller spends on success). */
  private allowed(network: Network, asset: string, spender: string, amount: bigint): boolean {
    return (this.allowances.get(this.allowanceKey(network, asset, spender)) ?? 0n) >= amount;
  }

  private spend(network: Network, asset: string, spender: string, amount: bigint): void {
    const key = this.allowanceKey(network, asset, spender);
    this.allowances.set(key, (this.allowances.get(key) ?? 0n) - amount);
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
