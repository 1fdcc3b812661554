import type { CurveParams } from '../../domain/curve.js';
import type { FeeShareRates } from '../../domain/fees.js';
import type { Network } from '../../domain/network.js';
import type { UsdPrice } from '../../domain/usd-price.js';

/** Business settings fixed per deployment (read from config by the composition root). */
export interface Settings {
  /** Curve parameters given to every new token (fixed per token at creation). */
  curve: CurveParams;
  prices: {
    create: bigint;
    sell: bigint;
    /** Placing an order (docs/api.md "Orders"): ORDER_PRICE_USD. */
    order: bigint;
    info: bigint;
    /** A comment on a token (COMMENT_PRICE_USD, docs/api.md "Comments"). */
    comment: bigint;
    /** A creator's change of its token's image (token_image). */
    image: bigint;
    /** A fair launch's pledge (token_pledge, PLEDGE_PRICE_USD). */
    pledge: bigint;
  };
  /** Bounds of a buy's gross USD (docs/api.md "Paid endpoints": ≥ 0.01, ≤ configurable max, default 10000). */
  minBuyUsd: bigint;
  maxBuyUsd: bigint;
  quoteTtlSeconds: number;
  /** Below this USD price USDC is not taken 1:1 but priced from its quote (docs/pricing.md). */
  usdcDepegFloor: UsdPrice;
  /**
   * The quote router's spread bound (QUOTE_MAX_SPREAD_BPS): a price held for a 402 is honoured
   * only while the live price is within this many basis points of it.
   */
  quoteMaxSpreadBps: bigint;
  defaultSlippageBps: bigint;
  /** The service's treasury (payTo) per network. */
  payTo: Record<Network, string>;
  /**
   * The x402 `batch-settlement` scheme (docs/payments.md "Pay once, call many"): the receiver
   * authorizer per network — the facilitator's key that signs claims and cooperative refunds,
   * named in every channel — and the shortest withdraw delay a channel may have; null: not offered.
   */
  batchSettlement: { receiverAuthorizer: Record<Network, string>; withdrawDelaySeconds: number } | null;
  /**
   * The x402 `upto` scheme (docs/payments.md "Pay up to"), offered for operations whose price is a
   * maximum: the facilitator's address per network — the one account its payers let settle
   * (the Permit2 witness's `facilitator`); null: not offered.
   */
  upto: { facilitatorAddress: Record<Network, string> } | null;
  serviceVersion: string;
  /** Kept by the treasury from a graduating curve's real USD reserve; the rest seeds the pool (docs/api.md "Graduation and the Uniswap v2 pool"). */
  graduationFeeUsd: bigint;
  /** How long a sell waits for custody's pull of the tokens to be mined before answering 202. */
  pullWaitMs: number;
  /** Who shares every trading fee with the treasury, in basis points of the fee (docs/api.md "Fees and earnings"). */
  feeShares: FeeShareRates;
  /** An earner's unpaid shares are paid out on chain once they reach this (USD micro-units). */
  earningsPayoutMinUsd: bigint;
  /**
   * The anti-snipe launch fee given to every new token: the fee starts at `startBps` and falls
   * linearly to the base fee over `decayMs` (decayMs 0, or a start at the base fee: none).
   */
  launchFee: { startBps: bigint; decayMs: bigint };
}
