/**
 * What the bridge may spend for its agent: at most `maxPerCall` on one call and `budget` in the
 * whole run, in micro-USD. A price is reserved before anything is signed — so calls in flight
 * together never spend past the budget — and the reservation is either kept (the payment may have
 * moved money) or released (the service refused it: nothing was charged).
 */
import { formatUsd } from '../../../domain/money.js';

export type SpendingRefusal = { code: 'OVER_MAX_PAYMENT' | 'OVER_BUDGET'; message: string; details: Record<string, string> };

export interface Reservation {
  amount: bigint;
  /** The payment may have been charged: it stays spent. */
  keep(): void;
  /** Nothing was charged: the amount is free again. */
  release(): void;
}

export class SpendingLimits {
  private spentUsd = 0n;

  constructor(
    readonly maxPerCall: bigint,
    readonly budget: bigint,
  ) {}

  get spent(): bigint {
    return this.spentUsd;
  }

  get remaining(): bigint {
    return this.budget > this.spentUsd ? this.budget - this.spentUsd : 0n;
  }

  reserve(amount: bigint): Reservation | SpendingRefusal {
    const details = { priceUsd: formatUsd(amount), maxPaymentUsd: formatUsd(this.maxPerCall), budgetUsd: formatUsd(this.budget), spentUsd: formatUsd(this.spentUsd) };
    if (amount > this.maxPerCall) {
      return { code: 'OVER_MAX_PAYMENT', message: `The price, $${formatUsd(amount)}, is over MAX_PAYMENT_USD ($${formatUsd(this.maxPerCall)} per call): not paid, nothing signed.`, details };
    }
    if (this.spentUsd + amount > this.budget) {
      return {
        code: 'OVER_BUDGET',
        message: `Paying $${formatUsd(amount)} would pass BUDGET_USD ($${formatUsd(this.budget)} for this run; $${formatUsd(this.spentUsd)} spent): not paid, nothing signed.`,
        details,
      };
    }
    this.spentUsd += amount;
    let settled = false;
    return {
      amount,
      keep: () => {
        settled = true;
      },
      release: () => {
        if (settled) return;
        settled = true;
        this.spentUsd -= amount;
      },
    };
  }
}
