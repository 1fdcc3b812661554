import type { Network } from '../domain/network.js';
import type { PoolReserves } from '../domain/pool.js';
import type { PreparedTransaction } from './token-issuer.js';
import type { TransactionSender } from './transaction-sender.js';

/** A pair as its contract reports it, from the USD side. */
export interface PoolState extends PoolReserves {
  /** The pair's address (checksummed). */
  pair: string;
}

/** LaunchFactory.seedPool: the graduation pool seeded at target.usd/target.tokens, whatever is in the pair. */
export interface SeedPool {
  token: string;
  tokenAmount: bigint;
  usdAmount: bigint;
  /** Who receives the LP tokens and the launched tokens the pool did not need (the burn address). */
  lockTo: string;
}

/** What a mined seed did (its PoolSeeded event). */
export interface SeedOutcome {
  pair: string;
  /** The pair's reserves right after the seed. */
  tokenReserve: bigint;
  usdReserve: bigint;
  liquidity: bigint;
  tokensLocked: bigint;
  /** USD the pool did not need, back with custody. */
  usdReturned: bigint;
}

export interface SwapExactIn {
  /** The asset custody pays in (the launched token or the network's USDC) … */
  tokenIn: string;
  /** … and the asset that comes out, to `to`. */
  tokenOut: string;
  amountIn: bigint;
  /** The router reverts when the pool would give less (UniswapV2Router: INSUFFICIENT_OUTPUT_AMOUNT). */
  amountOutMin: bigint;
  to: string;
  deadline: bigint;
}

/** What a mined swap moved, as the pair's Swap event reports it, each on its own token's side. */
export interface SwapOutcome {
  /**
   * The input the pair counted of the token swapped in: whatever of that token sat in it unsynced
   * (a donation) counts too, so it is not what custody swapped — the amount it signed is (decision
   * 0061). Not used for booking.
   */
  amountIn: bigint;
  /** What the swap paid out of the token swapped for, to custody. */
  amountOut: bigint;
}

/**
 * A Uniswap v2 router and factory used by custody (docs/api.md "Graduation and the Uniswap v2 pool"): graduation seeds a token/USDC pair
 * and trading continues through it. Pairs are always the launched token against the network's
 * USDC; reserves are read through the factory's `getPair`, never computed.
 *
 * Writes are outbox-shaped like TokenIssuer's: `prepare*` signs with custody's next nonce and
 * sends nothing, the caller records `{txHash, rawTx}`, then `broadcast` (as often as needed) and
 * `status`.
 */
export interface DexRouter extends TransactionSender {
  /** Whether this network has a router to trade on (a real network may have none configured). */
  supports(network: Network): boolean;
  /** The account that signs here (custody: it holds the supply and the curve's USDC). */
  custody(network: Network): string;
  router(network: Network): string;
  /** The network's USDC, the other side of every pair. */
  usdc(network: Network): string;
  /** The token/USDC pair, or null while none exists. */
  pairOf(network: Network, token: string): Promise<string | null>;
  /** The pair's reserves now, or null while there is no pair or it holds nothing. */
  reserves(network: Network, token: string): Promise<PoolState | null>;
  /** The contract that seeds graduation pools (the network's LaunchFactory). */
  seeder(network: Network): string;
  /** What custody lets `spender` (the router or the seeder) take of `asset`. */
  allowance(network: Network, asset: string, spender: string): Promise<bigint>;
  /** ERC-20 balance of `holder` in `asset` (LP tokens too: the pair is an ERC-20). */
  balanceOf(network: Network, asset: string, holder: string): Promise<bigint>;

  /** Signs custody's `approve(spender, amount)` on `asset`. */
  prepareApprove(network: Network, asset: string, spender: string, amount: bigint): Promise<PreparedTransaction>;
  /**
   * Signs the seeder's `seedPool(factory, token, usdc, …)`: it creates the pair when there is none,
   * moves a pair someone filled first to the target price and adds at that price, in one
   * transaction (domain/pool.ts planPoolSeed says exactly what it does).
   */
  prepareSeedPool(network: Network, args: SeedPool): Promise<PreparedTransaction>;
  /** What a mined, successful seed did; null when it is not mined or reverted. */
  seedOutcome(network: Network, txHash: string): Promise<SeedOutcome | null>;
  /** Signs `swapExactTokensForTokens(amountIn, amountOutMin, [tokenIn, tokenOut], to, deadline)`. */
  prepareSwap(network: Network, args: SwapExactIn): Promise<PreparedTransaction>;
  /**
   * What a mined, successful swap of `swap.tokenIn` for `swap.tokenOut` moved, each amount on its
   * own token's side of the pair; null when it is not mined or reverted.
   */
  swapOutcome(network: Network, txHash: string, swap: Pick<SwapExactIn, 'tokenIn' | 'tokenOut'>): Promise<SwapOutcome | null>;
}
