/**
 * A settlement its own request saw succeed is applied SETTLING → APPLIED in the operation's
 * transaction, with no SETTLED written between (decision 0058) — and every way out of that
 * window still applies the payment exactly once: a refusal is refunded from SETTLED, a failure
 * leaves SETTLED for the reconciler, a store that cannot even take that leaves SETTLING for the
 * reconciler to settle from the chain, and a reconciler that got there first wins the
 * compare-and-set while the request answers what it stored.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeFacilitator } from '../../src/adapters/facilitator/fake/fake-facilitator.js';
import { MemoryUnitOfWork } from '../../src/adapters/persistence/memory/memory-unit-of-work.js';
import type { RunningService } from '../../src/bootstrap/compose.js';
import type { Payment } from '../../src/domain/payment.js';
import { json, ShiftableClock, startTestService } from '../support/service.js';
import { devAccount, payingFetch } from '../support/x402-client.js';

const buyer = devAccount(6);
const clock = new ShiftableClock();
const uow = new MemoryUnitOfWork();
const facilitator = new FakeFacilitator({ clock, defaultBalance: 10_000_000_000n });
/** What the next settlement's request meets right after the facilitator answered success. */
let afterSettle: ((p: Payment) => Promise<void>) | null = null;
let service: RunningService;
let tokenId: string;

beforeAll(async () => {
  service = await startTestService({
    ports: { clock, uow, facilitator },
    hooks: {
      afterSettle: async (p) => {
        const f = afterSettle;
        afterSettle = null;
        await f?.(p);
      },
    },
  });
  tokenId = (await json(await buy('/tokens', { name: 'Settled', symbol: 'STLD' }))).data.tokenId;
});
afterAll(() => service?.stop());

function buy(path: string, body: unknown): Promise<Response> {
  return payingFetch(buyer)(`${service.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-wallet-address': buyer.address },
    body: JSON.stringify(body),
  });
}

const stored = (paymentId: string) => uow.db.payments.get(paymentId)!;
const tradesOf = (paymentId: string) => uow.db.trades.filter((t) => t.paymentId === paymentId);
/** The reconciler's passes, past its grace; then the clock back, so the next payment's authorization is not signed in its past. */
async function reconcile(): Promise<void> {
  const now = clock.offsetMs;
  clock.offsetMs += 31_000;
  await service.runWorkers();
  await service.runWorkers();
  clock.offsetMs = now;
}

describe('a settlement applied by its own request (decision 0058)', () => {
  it('goes SETTLING → APPLIED with its settlement transaction in the trade’s transaction; SETTLED is never written', async () => {
    let seen: { state: string; settlementTx: string | null } | null = null;
    afterSettle = async (p) => {
      const row = stored(p.paymentId);
      seen = { state: row.state, settlementTx: row.settlementTx };
      expect(p).toMatchObject({ state: 'SETTLING', settlementTx: expect.stringMatching(/^0x[0-9a-f]{64}$/) });
    };
    const res = await buy('/entrypoints/token_buy_usd', { tokenId, usdAmount: '2' });
    expect(res.status).toBe(200);
    expect(seen).toEqual({ state: 'SETTLING', settlementTx: null }); // the success was not written on its own
    const [payment] = [...uow.db.payments.values()].filter((p) => p.resource === 'token_buy_usd').slice(-1);
    expect(payment).toMatchObject({ state: 'APPLIED', settlementTx: expect.stringMatching(/^0x[0-9a-f]{64}$/) });
    expect(tradesOf(payment!.paymentId)).toHaveLength(1);
    const status = (await json(await fetch(`${service.url}/api/payments/${payment!.paymentId}`))).data;
    expect(status).toMatchObject({ state: 'APPLIED', settlementTx: payment!.settlementTx });
  });

  it('a failure before the application leaves it SETTLED with its transaction; the reconciler applies it once', async () => {
    let settled: Payment | null = null;
    afterSettle = async (p) => {
      settled = p;
      throw new Error('simulated failure between settlement and application');
    };
    expect((await buy('/entrypoints/token_buy_usd', { tokenId, usdAmount: '1' })).status).toBe(500);
    const { paymentId, settlementTx } = settled!;
    expect(stored(paymentId)).toMatchObject({ state: 'SETTLED', settlementTx });
    await reconcile();
    expect(stored(paymentId)).toMatchObject({ state: 'APPLIED', settlementTx });
    expect(tradesOf(paymentId)).toHaveLength(1);
  });

  it('a store that cannot take even SETTLED leaves it SETTLING: the reconciler settles it from the chain and applies it once', async () => {
    let settled: Payment | null = null;
    afterSettle = async (p) => {
      settled = p;
      // The process dies here: nothing more reaches the store from this request.
      const run = uow.run.bind(uow);
      uow.run = async () => {
        uow.run = run;
        throw new Error('the database is gone');
      };
      throw new Error('simulated crash right after settlement');
    };
    expect((await buy('/entrypoints/token_buy_usd', { tokenId, usdAmount: '1.5' })).status).toBe(500);
    const { paymentId } = settled!;
    expect(stored(paymentId)).toMatchObject({ state: 'SETTLING', settlementTx: null });
    await reconcile();
    expect(stored(paymentId).state).toBe('APPLIED');
    expect(tradesOf(paymentId)).toHaveLength(1);
    expect(tradesOf(paymentId)[0]!.usdAmount).toBe(1_500_000n);
  });

  it('a reconciler that settles and applies it first wins: the request’s application rolls back and answers the stored answer', async () => {
    let paymentId = '';
    afterSettle = async (p) => {
      paymentId = p.paymentId;
      await reconcile(); // the request was slow: the reconciler found the settlement on chain and applied it
      expect(stored(p.paymentId).state).toBe('APPLIED');
    };
    const res = await buy('/entrypoints/token_buy_usd', { tokenId, usdAmount: '1.25' });
    expect(res.status).toBe(200);
    expect(tradesOf(paymentId)).toHaveLength(1);
    const body = await json(res);
    expect(body.data.trade.usdAmount).toBe('1.25');
  });
});
