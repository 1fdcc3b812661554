import type { Network } from './network.js';
import type { TradeSide } from './trade.js';

/** A held price (docs/api.md "Paid endpoints" and "Free endpoints"): valid until `expiresAt`, stored so a paid retry sees the same price. */
export interface Quote {
  readonly quoteId: string;
  readonly tokenId: string;
  readonly network: Network;
  readonly side: TradeSide;
  /** Buy: gross USD to pay. Sell: USD out after fee at quote time. */
  readonly usdAmount: bigint;
  /** Buy: tokens expected at quote time. Sell: tokens to sell. */
  readonly tokens: bigint;
  /** Buy: minTokensOut; sell: minUsdOut — after the slippage tolerance. */
  readonly minOut: bigint;
  readonly feeUsd: bigint;
  readonly slippageBps: bigint;
  readonly provider: string;
  readonly createdAt: Date;
  readonly expiresAt: Date;
}
