/**
 * Graduation → DEX pool (SPEC §14): once the last curve token is sold, custody seeds a Uniswap v2
 * token/USDC pair with the supply the curve never sold and the curve's real USD reserve less the
 * graduation fee, and burns the LP tokens. That takes three transactions of custody's — approve
 * the token, approve USDC, addLiquidity — each its own outbox item (the engine sends one signed
 * transaction per item, recorded before broadcast), queued by the one before it when it is mined:
 *
 *   token graduates ──▶ approve-token ──mined──▶ approve-usd ──mined──▶ add-liquidity ──mined──▶ pool CREATED
 *
 * Every step's sourceId is `${tokenId}:${step}`, so no step is ever queued twice.
 */
import type { Network } from './network.js';
import { newOutboxFields, type OutboxFields } from './outbox.js';

/** Where the pool's LP tokens go: burned (the pair refuses to mint to the zero address). */
export const BURN_ADDRESS = '0x000000000000000000000000000000000000dEaD';

export const GRADUATION_STEPS = ['approve-token', 'approve-usd', 'add-liquidity'] as const;
export type GraduationStep = (typeof GRADUATION_STEPS)[number];

export interface Graduation extends OutboxFields {
  readonly graduationId: string;
  readonly tokenId: string;
  readonly step: GraduationStep;
  /** What the pool is seeded with: token units and USDC units. */
  readonly tokenAmount: bigint;
  readonly usdAmount: bigint;
  /** The pair, once add-liquidity is mined. */
  readonly pair: string | null;
}

export type PoolState = 'PENDING' | 'CREATED' | 'FAILED';

/** What a token shows of its pool (null before it graduates). */
export interface PoolSummary {
  readonly dex: 'uniswap-v2';
  readonly state: PoolState;
  readonly address: string | null;
  readonly txHash: string | null;
}

export const PENDING_POOL: PoolSummary = { dex: 'uniswap-v2', state: 'PENDING', address: null, txHash: null };

export const graduationSource = (tokenId: string, step: GraduationStep) => `${tokenId}:${step}`;

export function newGraduationStep(args: {
  graduationId: string;
  network: Network;
  tokenId: string;
  step: GraduationStep;
  tokenAmount: bigint;
  usdAmount: bigint;
  now: Date;
}): Graduation {
  return {
    ...newOutboxFields(args.network, graduationSource(args.tokenId, args.step), args.now),
    graduationId: args.graduationId,
    tokenId: args.tokenId,
    step: args.step,
    tokenAmount: args.tokenAmount,
    usdAmount: args.usdAmount,
    pair: null,
  };
}

/** The step after `step`, or null after the last. */
export function nextGraduationStep(step: GraduationStep): GraduationStep | null {
  return GRADUATION_STEPS[GRADUATION_STEPS.indexOf(step) + 1] ?? null;
}
