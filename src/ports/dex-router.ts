import type { Network } from '../domain/network.js';
import type { PoolReserves } from '../domain/pool.js';
import type { PreparedTransaction } from './token-issuer.js';
import type { TransactionSender } from './transaction-sender.js';

/** A pair as its contract reports it, from the USD side. */
export interface PoolState extends PoolReserves {
  /** The pair's address (checksummed). */
  pair: string;
}

export interface AddLiquidity {
  token: string;
  tokenAmount: bigint;
  usdAmount: bigint;
  /** Who receives the LP tokens (the burn address). */
  to: string;
  /** Unix seconds after which the router refuses it. */
  deadline: bigint;
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

/** What a mined swap moved. */
export interface SwapOutcome {
  amountIn: bigint;
  amountOut: bigint;
}

/**
 * A Uniswap v2 router and factory used by custody (SPEC §14): graduation seeds a token/USDC pair
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
  /** What custody lets the router take of `asset`. */
  allowance(network: Network, asset: string): Promise<bigint>;
  /** ERC-20 balance of `holder` in `asset` (LP tokens too: the pair is an ERC-20). */
  balanceOf(network: Network, asset: string, holder: string): Promise<bigint>;

  /** Signs custody's `approve(router, amount)` on `asset`. */
  prepareApprove(network: Network, asset: string, amount: bigint): Promise<PreparedTransaction>;
  /**
   * Signs `addLiquidity(token, usdc, …)` with the minimums equal to the amounts: it creates the
   * pair when there is none and reverts rather than add at another ratio.
   */
  prepareAddLiquidity(network: Network, args: AddLiquidity): Promise<PreparedTransaction>;
  /** Signs `swapExactTokensForTokens(amountIn, amountOutMin, [tokenIn, tokenOut], to, deadline)`. */
  prepareSwap(network: Network, args: SwapExactIn): Promise<PreparedTransaction>;
  /** What a mined, successful swap moved; null when it is not mined or reverted. */
  swapOutcome(network: Network, txHash: string): Promise<SwapOutcome | null>;
}
