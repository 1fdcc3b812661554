import { ceilDiv } from './money.js';

export const BPS_DENOMINATOR = 10_000n;

/** A fee of `bps` basis points on `amount`, rounded up: rounding always favours the curve. */
export function feeOn(amount: bigint, bps: bigint): bigint {
  if (bps < 0n || bps >= BPS_DENOMINATOR) throw new RangeError('fee bps must be in [0, 10000)');
  return ceilDiv(amount * bps, BPS_DENOMINATOR);
}
