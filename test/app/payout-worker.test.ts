/**
 * The payout outbox over the fake chain: every way a transfer can go, and that none is ever paid
 * twice or left SENT for ever (docs/payments.md).
 */
import { describe, expect, it } from 'vitest';
import { FakeClock } from '../../src/adapters/clock/fake/fake-clock.js';
import { FakePayoutSender } from '../../src/adapters/payout/fake/fake-payout-sender.js';
import { MemoryUnitOfWork } from '../../src/adapters/persistence/memory/memory-unit-of-work.js';
import { PayoutWorker, type PayoutWorkerDeps } from '../../src/app/workers/payout-worker.js';
import { payout } from '../support/fixtures.js';

const silent = { debug() {}, info() {}, warn() {}, error() {} };

async function setup(over: Partial<PayoutWorkerDeps> = {}) {
  const clock = new FakeClock('2026-01-01T00:00:00Z');
  const uow = new MemoryUnitOfWork();
  const sender = new FakePayoutSender();
  const worker = new PayoutWorker({
    uow,
    clock,
    sender,
    logger: silent,
    maxAttempts: 3,
    backoffBaseMs: 5_000,
    backoffMaxMs: 60_000,
    confirmPollMs: 1_000,
    stuckAfterMs: 60_000,
    ...over,
  });
  const p = payout({ createdAt: clock.now(), updatedAt: clock.now(), nextAttemptAt: clock.now() });
  await uow.run((s) => s.payouts.enqueue(p));
  const state = () => uow.db.payouts.get(p.payoutId)!;
  const pass = async (ms = 1_000) => {
    clock.advance(ms);
    return worker.runOnce();
  };
  return { clock, uow, sender, worker, p, state, pass };
}

describe('PayoutWorker', () => {
  it('sends, then confirms: PENDING → SENT → CONFIRMED with an event each', async () => {
    const { sender, state, pass, uow } = await setup();
    await pass(0);
    expect(state().state).toBe('SENT');
    await pass();
    expect(state().state).toBe('CONFIRMED');
    expect(sender.transfers).toHaveLength(1);
    expect(uow.db.events.map((e) => e.type)).toEqual(['payout.sent', 'payout.confirmed']);
  });

  it('a dropped transfer is signed again with a new transaction, and paid once', async () => {
    const { sender, state, pass } = await setup();
    sender.scriptNext('drop');
    await pass(0);
    const first = state().txHash;
    await pass(); // dropped → PENDING with backoff
    expect(state()).toMatchObject({ state: 'PENDING', lastError: 'transaction dropped' });
    await pass(5_000);
    expect(state().state).toBe('SENT');
    expect(state().txHash).not.toBe(first);
    await pass();
    expect(state().state).toBe('CONFIRMED');
    expect(sender.transfers).toHaveLength(1);
  });

  it('a transfer that waits too long has the nonce gap below it filled, and is not left SENT', async () => {
    const { sender, state, pass } = await setup();
    sender.scriptNext('hold');
    await pass(0);
    for (let i = 0; i < 5; i++) await pass(1_000);
    expect(state().state).toBe('SENT');
    expect(sender.unblocks).toBe(0); // not yet: a slow chain is not a gap
    await pass(60_000);
    expect(sender.unblocks).toBe(1);
    await pass();
    expect(state().state).toBe('CONFIRMED');
    expect(sender.transfers).toHaveLength(1);
  });

  it('reverted every time: retried with backoff, then FAILED with an event', async () => {
    const { sender, state, pass, uow } = await setup();
    for (let attempt = 1; attempt <= 3; attempt++) {
      sender.scriptNext('reverted');
      await pass(60_000);
      await pass(1_000);
    }
    expect(state()).toMatchObject({ state: 'FAILED', attempts: 3, lastError: 'transaction reverted' });
    expect(uow.db.events.at(-1)!.type).toBe('payout.failed');
    expect(sender.transfers).toHaveLength(0);
  });

  it('a crash between recording and broadcasting: the same transaction is broadcast next pass, paid once', async () => {
    let crash = true;
    const { sender, state, pass } = await setup({
      afterRecord: async () => {
        if (crash) {
          crash = false;
          throw new Error('crash');
        }
      },
    });
    await pass(0);
    const recorded = state();
    expect(recorded.state).toBe('SENT');
    expect(sender.broadcasts).toBe(0);
    await pass();
    await pass();
    expect(state()).toMatchObject({ state: 'CONFIRMED', txHash: recorded.txHash });
    expect(sender.transfers).toHaveLength(1);
  });

  it('a signed transfer that could not be recorded hands its nonce back', async () => {
    const { sender, uow, p, worker, clock } = await setup();
    // Another worker sends it first: this one's compare-and-set loses.
    const real = uow.transaction.bind(uow);
    uow.transaction = async (work) => {
      uow.transaction = real;
      await real((s) => s.payouts.update({ ...p, state: 'SENT', txHash: '0x1', rawTx: '0x1' }, 'PENDING'));
      return real(work);
    };
    clock.advance(1);
    await worker.runOnce();
    expect(sender.releases).toBe(1);
    expect(sender.broadcasts).toBe(0);
  });
});
