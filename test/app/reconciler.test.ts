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
  service = await startTestService({ ports: { clock, uow, facilitator } });
  const insert = async (p: Partial<Payment>) => {
    const stored = payment({ createdAt: clock.now(), updatedAt: clock.now(), payer: devAccount(5).address, ...p });
    await uow.run((s) => s.payments.claim(stored));
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

  it('a SETTLING payment unused on chain at a block past validBefore is FAILED; one still valid is left alone', async () => {
    const { uow, insert, later } = await start();
    const expired = await insert({ state: 'SETTLING', validBefore: 1_000n });
    const valid = await insert({ state: 'SETTLING', validBefore: 2n ** 40n });
    later();
    await service.reconciler.runOnce();
    expect(uow.db.payments.get(expired.paymentId)!.state).toBe('FAILED');
    expect(uow.db.responses.get(expired.paymentId)!.body).toMatchObject({
      error: { code: 'PAYMENT_INVALID', details: { reason: 'settlement_failed', authorization: 'unused' } },
    });
    expect(uow.db.payments.get(valid.paymentId)!.state).toBe('SETTLING');
  });

  it('a SETTLING payment whose authorization the payer cancelled is FAILED at once', async () => {
    const { uow, insert, later, facilitator } = await start();
    const p = await insert({ state: 'SETTLING', validBefore: 2n ** 40n });
    facilitator.cancel(p.network, p.payer, p.nonce);
    later();
    await service.reconciler.runOnce();
    expect(uow.db.payments.get(p.paymentId)!.state).toBe('FAILED');
  });

  it('safety net: a FAILED or REJECTED payment found used on chain is refunded once and logged as an error', async () => {
    const logs: { level: string; message: string }[] = [];
    const { uow, insert, later, facilitator, clock } = await start();
    const wallet = devAccount(5);
    const { requirementsFor } = await import('../../src/app/payments/requirements.js');
    const { sign } = await import('../contract/facilitator.contract.js');
    const rq = requirementsFor(TESTNET, 10_000n, service.application.deps.settings.payTo[TESTNET]);
    const failed = await sign(wallet, rq);
    const rejected = await sign(wallet, rq);
    const nonce = (x: typeof failed) => (x.payload as { authorization: { nonce: string } }).authorization.nonce;
    const f = await insert({ state: 'FAILED', payer: wallet.address, nonce: nonce(failed), amount: 10_000n, network: TESTNET });
    const r = await insert({ state: 'REJECTED', payer: wallet.address, nonce: nonce(rejected), amount: 10_000n, network: TESTNET });
    // A third party submits both signed authorizations: the money reaches the treasury anyway.
    facilitator.submit(failed);
    facilitator.submit(rejected);
    later();
    const { PaymentReconciler } = await import('../../src/app/workers/payment-reconciler.js');
    const app = service.application;
    const reconciler = new PaymentReconciler({
      ...app.deps,
      logger: { debug() {}, info() {}, warn() {}, error: (message: string) => logs.push({ level: 'error', message }) },
      entrypoints: app.entrypoints,
      chain: facilitator,
      graceMs: 30_000,
      refundAfterMs: 15 * 60_000,
    });
    await reconciler.runOnce();
    clock.offsetMs += 120_000;
    await reconciler.runOnce();
    for (const p of [f, r]) {
      expect(uow.db.payments.get(p.paymentId)!.state).toBe('REFUNDED');
      expect([...uow.db.payouts.values()].filter((x) => x.sourceId === p.paymentId)).toMatchObject([{ amount: 10_000n, reason: 'refund' }]);
    }
    expect(logs.filter((l) => l.message.startsWith('SAFETY NET'))).toHaveLength(2);
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
