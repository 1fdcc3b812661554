/** The payment reconciler over fakes: every state a dead request can leave a payment in. */
import { afterEach, describe, expect, it } from 'vitest';
import { FakeFacilitator } from '../../src/adapters/facilitator/fake/fake-facilitator.js';
import { MemoryUnitOfWork } from '../../src/adapters/persistence/memory/memory-unit-of-work.js';
import type { RunningService } from '../../src/bootstrap/compose.js';
import { TESTNET } from '../../src/domain/network.js';
import type { Payment } from '../../src/domain/payment.js';
import { payment } from '../support/fixtures.js';
import { json, ShiftableClock, startTestService } from '../support/service.js';
import { devAccount, payingFetch } from '../support/x402-client.js';

let service: RunningService;
afterEach(async () => {
  await service?.stop();
});

async function start() {
  const clock = new ShiftableClock();
  const uow = new MemoryUnitOfWork();
  const facilitator = new FakeFacilitator({ clock, defaultBalance: 10_000_000_000n });
  service = await startTestService({ clock, uow, facilitator });
  const insert = async (p: Partial<Payment>) => {
    const stored = payment({ createdAt: clock.now(), updatedAt: clock.now(), payer: devAccount(5).address, ...p });
    await uow.read((s) => s.payments.claim(stored));
    return stored;
  };
  return { clock, uow, facilitator, insert, later: () => (clock.offsetMs += 31_000) };
}

describe('PaymentReconciler', () => {
  it('leaves young payments to their own request', async () => {
    const { uow, insert } = await start();
    const p = await insert({ state: 'VERIFIED' });
    expect(await service.reconciler.runOnce()).toBe(0);
    expect(uow.db.payments.get(p.paymentId)!.state).toBe('VERIFIED');
  });

  it('closes a payment whose request died before settlement: REJECTED, nothing charged, the answer stored', async () => {
    const { uow, insert, later, facilitator } = await start();
    const p = await insert({ state: 'VERIFIED' });
    later();
    await service.reconciler.runOnce();
    expect(uow.db.payments.get(p.paymentId)!.state).toBe('REJECTED');
    expect(uow.db.responses.get(p.paymentId)).toMatchObject({ status: 503, body: { error: { code: 'SERVICE_UNAVAILABLE' } } });
    expect(facilitator.settleCalls).toBe(0);
  });

  it('a SETTLING payment never mined and past validBefore is FAILED; one still valid is left alone', async () => {
    const { uow, insert, later } = await start();
    const expired = await insert({ state: 'SETTLING', validBefore: 1_000n });
    const valid = await insert({ state: 'SETTLING', validBefore: 2n ** 40n });
    later();
    await service.reconciler.runOnce();
    expect(uow.db.payments.get(expired.paymentId)!.state).toBe('FAILED');
    expect(uow.db.responses.get(expired.paymentId)!.body).toMatchObject({ error: { code: 'PAYMENT_INVALID', details: { reason: 'settlement_expired' } } });
    expect(uow.db.payments.get(valid.paymentId)!.state).toBe('SETTLING');
  });

  it('a SETTLED payment whose operation is refused now is REFUNDED with a payout, exactly once', async () => {
    const { uow, insert, later } = await start();
    const wallet = devAccount(5);
    const created = await payingFetch(wallet)(`${service.url}/tokens`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-wallet-address': wallet.address },
      body: JSON.stringify({ name: 'Gone', symbol: 'GONE' }),
    });
    const tokenId = (await json(created)).data.tokenId;
    // a settled buy whose minTokensOut can no longer be met
    const p = await insert({
      state: 'SETTLED',
      settlementTx: '0xabc',
      resource: 'token_buy_usd',
      amount: 1_000_000n,
      network: TESTNET,
      input: { tokenId, usdAmount: '1', minTokensOut: '999999999' },
    });
    later();
    await service.reconciler.runOnce();
    await service.reconciler.runOnce();
    expect(uow.db.payments.get(p.paymentId)!.state).toBe('REFUNDED');
    const refunds = [...uow.db.payouts.values()].filter((x) => x.sourceId === p.paymentId);
    expect(refunds).toHaveLength(1);
    expect(refunds[0]).toMatchObject({ amount: 1_000_000n, reason: 'refund', wallet: wallet.address });
  });
});

describe('a settled payment that cannot be applied for too long', () => {
  it('is retried, then refunded once the age limit passes', async () => {
    const { PaymentReconciler } = await import('../../src/app/workers/payment-reconciler.js');
    const { uow, insert, clock, facilitator } = await start();
    const app = service.application;
    const broken = { ...app.entrypoints.get('token_create')!, execute: () => Promise.reject(new Error('a bug')) };
    const reconciler = new PaymentReconciler({
      ...app.deps,
      flow: app.flow,
      entrypoints: new Map([['token_create', broken]]),
      chain: facilitator,
      graceMs: 30_000,
      refundAfterMs: 15 * 60_000,
    });
    const p = await insert({ state: 'SETTLED', settlementTx: '0xabc', resource: 'token_create', input: { name: 'B', symbol: 'B' } });
    clock.offsetMs += 31_000;
    await reconciler.runOnce();
    expect(uow.db.payments.get(p.paymentId)!.state).toBe('SETTLED'); // retried, not yet refunded
    clock.offsetMs += 15 * 60_000;
    await reconciler.runOnce();
    expect(uow.db.payments.get(p.paymentId)!.state).toBe('REFUNDED');
    expect([...uow.db.payouts.values()].filter((x) => x.sourceId === p.paymentId)).toHaveLength(1);
    expect(uow.db.responses.get(p.paymentId)).toMatchObject({ status: 503, body: { error: { details: { reason: 'apply_failed' } } } });
  });
});
