import { describe, expect, it } from 'vitest';
import {
  canTransition,
  IllegalPaymentTransition,
  PAYMENT_TRANSITIONS,
  settlementOutcome,
  transitionPayment,
  type Payment,
  type PaymentState,
} from '../../src/domain/payment.js';
import { newPayout, transitionPayout } from '../../src/domain/payout.js';
import { InvariantViolation } from '../../src/domain/errors.js';

const payment: Payment = {
  paymentId: 'pay_1',
  network: 'eip155:84532',
  payer: '0xA',
  nonce: '0x01',
  asset: 'USDC',
  amount: 10_000n,
  usdValue: 10_000n,
  quoteId: null,
  quotePrice: null,
  resource: 'POST /tokens',
  requestHash: 'h',
  signatureHash: 's',
  input: {},
  state: 'VERIFIED',
  settlementTx: null,
  validBefore: 100n,
  createdAt: new Date(0),
  updatedAt: new Date(0),
};

const ALL: PaymentState[] = ['VERIFIED', 'SETTLING', 'SETTLED', 'APPLIED', 'REFUNDED', 'REJECTED', 'FAILED'];
const LEGAL = new Set([
  'VERIFIED>SETTLING',
  'VERIFIED>REJECTED',
  'SETTLING>SETTLED',
  'SETTLING>FAILED',
  'SETTLED>APPLIED',
  'SETTLED>REFUNDED',
  // the safety net: a closed, never-settled payment found used on chain is paid back
  'FAILED>REFUNDED',
  'REJECTED>REFUNDED',
]);

describe('payment lifecycle', () => {
  it('allows exactly the transitions of docs/payments.md and no others', () => {
    for (const from of ALL) {
      for (const to of ALL) {
        expect(canTransition(from, to), `${from} → ${to}`).toBe(LEGAL.has(`${from}>${to}`));
      }
    }
    expect(Object.keys(PAYMENT_TRANSITIONS).sort()).toEqual([...ALL].sort());
  });

  it('walks the happy path and records the settlement transaction', () => {
    const settling = transitionPayment(payment, 'SETTLING', new Date(1));
    const settled = transitionPayment(settling, 'SETTLED', new Date(2), { settlementTx: '0xabc' });
    const applied = transitionPayment(settled, 'APPLIED', new Date(3));
    expect(applied).toMatchObject({ state: 'APPLIED', settlementTx: '0xabc', updatedAt: new Date(3) });
  });

  it('throws on an illegal transition, e.g. applying an unsettled payment', () => {
    expect(() => transitionPayment(payment, 'APPLIED', new Date(1))).toThrow(IllegalPaymentTransition);
    const applied = { ...payment, state: 'APPLIED' as const };
    expect(() => transitionPayment(applied, 'REFUNDED', new Date(1))).toThrow(IllegalPaymentTransition);
  });
});

describe('the FAILED rule: what an unconfirmed settlement did', () => {
  const at = (state: 'unused' | 'used' | 'cancelled', blockTime: bigint) => ({ state, transaction: null, blockTime });
  it('used is settled, whatever the time', () => {
    expect(settlementOutcome(at('used', 0n), 100n)).toBe('settled');
    expect(settlementOutcome(at('used', 500n), 100n)).toBe('settled');
  });
  it('unused is failed only once no block can include it any more (its block is at or past validBefore)', () => {
    expect(settlementOutcome(at('unused', 99n), 100n)).toBe('unknown');
    expect(settlementOutcome(at('unused', 100n), 100n)).toBe('failed');
  });
  it('cancelled can never be used: failed at once', () => {
    expect(settlementOutcome(at('cancelled', 0n), 100n)).toBe('failed');
  });
});

describe('payout lifecycle', () => {
  const p = newPayout({
    payoutId: 'pout_1',
    network: 'eip155:84532',
    wallet: '0xA',
    amount: 5n,
    reason: 'sell',
    sourceId: 'trd_1',
    now: new Date(0),
  });

  it('starts PENDING and moves PENDING → SENT → CONFIRMED', () => {
    expect(p.state).toBe('PENDING');
    const sent = transitionPayout(p, 'SENT', new Date(1), { txHash: '0x1' });
    expect(transitionPayout(sent, 'CONFIRMED', new Date(2)).state).toBe('CONFIRMED');
  });

  it('refuses illegal moves and non-positive payouts', () => {
    const confirmed = transitionPayout(p, 'CONFIRMED', new Date(1)); // found done on chain: nothing to send
    expect(() => transitionPayout(confirmed, 'PENDING', new Date(2))).toThrow(InvariantViolation);
    expect(() => transitionPayout(confirmed, 'SENT', new Date(2))).toThrow(InvariantViolation);
    expect(() => newPayout({ ...p, amount: 0n, now: new Date(0) })).toThrow(InvariantViolation);
  });

  it('pays sell proceeds only in USDC; a refund in the asset that was paid', () => {
    expect(p.asset).toBe('USDC');
    expect(() => newPayout({ ...p, asset: 'EURC', now: new Date(0) })).toThrow(InvariantViolation);
    expect(newPayout({ ...p, asset: 'EURC', reason: 'refund', now: new Date(0) }).asset).toBe('EURC');
  });
});
