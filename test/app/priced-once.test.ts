/**
 * The price asked once (issue 53): a paid request asks its operation for the priced plan once, as
 * its payer, before verification, and carries it on; the one second look — after the claim
 * (decision 0024), and when the reconciler applies a settled payment (decision 0061) — compares
 * with what was priced or paid and says why they differ (pipeline/pricing.ts). Counted on a
 * create wrapped to tell each time it is asked, and whose price can be moved at any step.
 */
import { decodePaymentSignatureHeader } from '@x402/core/http';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { FakeFacilitator } from '../../src/adapters/facilitator/fake/fake-facilitator.js';
import { MemoryUnitOfWork } from '../../src/adapters/persistence/memory/memory-unit-of-work.js';
import type { RunningService } from '../../src/bootstrap/compose.js';
import type { AnyEntrypoint, Prepared } from '../../src/app/kit/catalogue/entrypoint.js';
import { resumeApplication } from '../../src/app/payments/pipeline/application.js';
import type { PaidRequest } from '../../src/app/payments/pipeline/deps.js';
import type { Outcome, PaidOutcome } from '../../src/app/payments/pipeline/outcome.js';
import type { PaymentPayload } from '../../src/ports/facilitator.js';
import { settledPayment } from '../support/settled-payment.js';
import { ShiftableClock, startTestService } from '../support/service.js';
import { devAccount, signPayment } from '../support/x402-client.js';

const wallet = devAccount(6);
const clock = new ShiftableClock();
const fake = new FakeFacilitator({ clock, defaultBalance: 10_000_000_000n });
const uow = new MemoryUnitOfWork();

/** What happened, in order: each time the operation was asked (and in which phase), verified, settled, executed. */
let steps: string[] = [];
/** Each plan the operation answered, in order. */
let plans: Prepared[] = [];
/** The plan the operation was executed with. */
let executedWith: Prepared | undefined;
/** Added to the create's price from the next time it is asked. */
let moved = 0n;
/** Run once while the facilitator verifies, or once the payment settled. */
let whileVerifying: (() => void) | null = null;
let afterSettle: (() => void) | null = null;

let service: RunningService;
let counting: AnyEntrypoint;

beforeAll(async () => {
  service = await startTestService({
    ports: {
      clock,
      uow,
      facilitator: {
        verify: async (p, r) => {
          steps.push('verify');
          const result = await fake.verify(p, r);
          whileVerifying?.();
          whileVerifying = null;
          return result;
        },
        settle: (p, r) => {
          steps.push('settle');
          return fake.settle(p, r);
        },
        supported: () => fake.supported(),
      },
    },
    hooks: {
      afterSettle: async () => {
        afterSettle?.();
        afterSettle = null;
      },
    },
  });
  const create = service.application.entrypoints.get('token_create')!;
  counting = {
    ...create,
    async prepare(deps, input, caller, phase) {
      steps.push(`prepare:${phase ?? 'price'}`);
      const plan = { ...(await create.prepare(deps, input, caller, phase)) } as Prepared;
      plan.amount += moved;
      plans.push(plan);
      return plan;
    },
    execute(deps, input, prepared, caller, paid) {
      steps.push('execute');
      executedWith = prepared as Prepared;
      return create.execute(deps, input, prepared, caller, paid);
    },
  };
});
afterAll(() => service.stop());

beforeEach(() => {
  steps = [];
  plans = [];
  executedWith = undefined;
  moved = 0n;
});

function call(symbol: string, payment?: PaymentPayload): Promise<PaidOutcome> {
  const req: PaidRequest = {
    entrypoint: counting,
    rawInput: { name: `Priced ${symbol}`, symbol },
    resource: { url: `${service.url}/tokens`, description: counting.description, mimeType: 'application/json' },
    walletHint: wallet.address,
    payment,
  };
  return service.application.flow.handle(req);
}

/** The 402 of `symbol`, signed: the paid request's payment. */
async function signed(symbol: string): Promise<PaymentPayload> {
  const challenge = await call(symbol);
  if (challenge.kind !== 'challenge') throw new Error(`expected a challenge, got ${challenge.kind}`);
  return decodePaymentSignatureHeader(await signPayment(wallet, challenge.paymentRequired as never)) as PaymentPayload;
}

describe('a paid request asks for its price once', () => {
  it('priced once as the payer before verification, looked at once again after the claim, and applied with that plan: nothing asks after the settlement', async () => {
    const payment = await signed('ONCE');
    expect(steps).toEqual(['prepare:ask']); // the 402: a request of its own
    steps = [];
    plans = [];

    const applied = await call('ONCE', payment);
    expect(applied.kind).toBe('applied');
    expect(steps).toEqual(['prepare:price', 'verify', 'prepare:price', 'settle', 'execute']);
    expect(plans.map((p) => p.amount)).toEqual([plans[0]!.amount, plans[0]!.amount]);
    expect(executedWith).toBe(plans[1]); // the second look's plan is the one carried on

    steps = [];
    const again = await call('ONCE', payment);
    expect(again).toMatchObject({ kind: 'replayed', verified: false });
    expect(steps).toEqual([]); // a replay is answered from the store: not priced at all
  });

  it('a price that moved while the payment was verified is refused at the claim: REJECTED, never settled, price_changed — and the same payment again answers the same', async () => {
    const payment = await signed('MOVED');
    steps = [];
    whileVerifying = () => (moved = 1n);
    const rejected = await call('MOVED', payment);
    expect(rejected.kind).toBe('rejected');
    const { response, paymentId } = rejected as Outcome<'rejected'>;
    expect(response.status).toBe(402);
    expect(response.body).toMatchObject({ error: { code: 'PAYMENT_INVALID', details: { reason: 'price_changed' } } });
    expect(steps).toEqual(['prepare:price', 'verify', 'prepare:price']); // no settle, no execute
    expect(uow.db.payments.get(paymentId!)!.state).toBe('REJECTED');

    steps = [];
    expect(await call('MOVED', payment)).toEqual({ kind: 'replayed', verified: false, response, paymentId });
    expect(steps).toEqual([]);
  });

  it('a price that moves once the payment settled is not asked again by the request: the payer pays what it signed, applied once', async () => {
    const payment = await signed('LATE');
    steps = [];
    plans = [];
    afterSettle = () => (moved = 1n);
    const applied = await call('LATE', payment);
    expect(applied.kind).toBe('applied');
    expect(steps).toEqual(['prepare:price', 'verify', 'prepare:price', 'settle', 'execute']);
    const paid = uow.db.payments.get((applied as Outcome<'applied'>).paymentId!)!;
    expect(paid.state).toBe('APPLIED');
    expect(paid.amount).toBe(plans[0]!.amount); // USDC at 1:1: the price priced, signed and charged
    expect(executedWith).toBe(plans[1]);
  });
});

describe('a settled payment the reconciler applies is looked at once, against what it paid', () => {
  it('at the price it paid: applied, its operation asked once (apply)', async () => {
    const { payment } = await settledPayment(service.application.deps, counting, { name: 'Resumed', symbol: 'RESUMED' });
    steps = [];
    const outcome = await resumeApplication(service.application.deps, counting, payment);
    expect(outcome.kind).toBe('applied');
    expect(steps).toEqual(['prepare:apply', 'execute']);
  });

  it('its price moved since: refunded in the asset that paid, price_changed, never executed', async () => {
    const { payment } = await settledPayment(service.application.deps, counting, { name: 'Repriced', symbol: 'REPRICED' });
    steps = [];
    moved = 1n;
    const outcome = await resumeApplication(service.application.deps, counting, payment);
    expect(outcome.kind).toBe('refunded');
    expect((outcome as Outcome<'refunded'>).response.body).toMatchObject({ error: { details: { reason: 'price_changed' } } });
    expect(steps).toEqual(['prepare:apply']);
    expect(uow.db.payments.get(payment.paymentId)!.state).toBe('REFUNDED');
  });
});
