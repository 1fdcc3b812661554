/**
 * Graduation → DEX pool (docs/api.md "Graduation"): once the last curve token is sold, custody
 * seeds a Uniswap v2 token/USDC pair with the supply the curve never sold and the curve's real USD
 * reserve less the graduation fee, and burns the LP tokens. Custody approves the router (for the
 * pool trades that follow) and the LaunchFactory, which seeds the pair in one transaction whatever
 * an outsider put in it first (decision 0023). Each transaction is its own outbox item (the engine
 * sends one signed transaction per item, recorded before broadcast), queued by the one before it
 * when it is mined:
 *
 *   token graduates ──▶ approve-token ──▶ approve-usd ──▶ approve-token-seeder ──▶ approve-usd-seeder
 *                       ──▶ add-liquidity (LaunchFactory.seedPool) ──mined──▶ pool CREATED
 *
 * Every step's sourceId is `${tokenId}:${step}`, so no step is ever queued twice. A pool that
 * still fails leaves the curve open for sells (`curveOpenForSells`), so no holder is stuck.
 */
import type { Network } from './network.js';
import { newOutboxFields, type OutboxFields } from './outbox.js';

/** Where the pool's LP tokens go: burned (the pair refuses to mint to the zero address). */
export const BURN_ADDRESS = '0x000000000000000000000000000000000000dEaD';

export const GRADUATION_STEPS = ['approve-token', 'approve-usd', 'approve-token-seeder', 'approve-usd-seeder', 'add-liquidity'] as const;
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
  /** What the mined seed did, known as it is confirmed (not stored: the pool event keeps it). */
  readonly seeded?: SeededPool;
}

export interface SeededPool {
  readonly tokenReserve: bigint;
  readonly usdReserve: bigint;
  /** Launched tokens the pool did not need, locked with the LP tokens. */
  readonly tokensLocked: bigint;
  /** USD the pool did not need, back with custody (what an outsider put in the pair first). */
  readonly usdReturned: bigint;
}

/** Which contract an approval step lets spend custody's asset, and which asset. */
export function approvalOf(step: GraduationStep): { spender: 'router' | 'seeder'; asset: 'token' | 'usd' } | null {
  if (step === 'add-liquidity') return null;
  return { spender: step.endsWith('-seeder') ? 'seeder' : 'router', asset: step.startsWith('approve-usd') ? 'usd' : 'token' };
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

const graduationSource = (tokenId: string, step: GraduationStep) => `${tokenId}:${step}`;

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
