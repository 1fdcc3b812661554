/**
 * A delivery, a batch of them, a payout or a deployment is confirmed by its effect, never by a
 * successful receipt alone (docs/decisions/0066): on a chain that is not the books' — the token,
 * the factory or the USDC without code, as after `DATA_DIR/devnet` was deleted — the transaction
 * is mined as a success that moves nothing. It stays SENT: not CONFIRMED, not signed or sent
 * again, an error in the log and a metric for an operator each time it is looked at.
 */
import { describe, expect, it } from 'vitest';
import { FakeClock } from '../../src/adapters/clock/fake/fake-clock.js';
import { SequentialIdGenerator } from '../../src/adapters/ids/sequential/sequential-id-generator.js';
import { MemoryLogger } from '../../src/adapters/logging/memory/memory-logger.js';
import { MemoryMetrics } from '../../src/adapters/metrics/memory/memory-metrics.js';
import { FakePayoutSender } from '../../src/adapters/payout/fake/fake-payout-sender.js';
import { MemoryUnitOfWork } from '../../src/adapters/persistence/memory/memory-unit-of-work.js';
import { FakeTokenIssuer } from '../../src/adapters/token/fake/fake-token-issuer.js';
import { METRICS, type AppMetrics } from '../../src/app/kit/metrics.js';
import { PayoutWorker } from '../../src/app/workers/payout-worker.js';
import { DeliveryWorker, DeploymentWorker } from '../../src/app/workers/token-workers.js';
import { newDeployment } from '../../src/domain/deployment.js';
import { TESTNET } from '../../src/domain/network.js';
import { payout, token as tokenFixture } from '../support/fixtures.js';
import { owedDeliveries } from '../support/deliveries.js';

const WALLETS = ['0x70997970C51812dc3A010C7d01b50e0d17dc79C8', '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC'];

function setup() {
  const clock = new FakeClock('2026-01-01T00:00:00Z');
  const uow = new MemoryUnitOfWork();
  const ids = new SequentialIdGenerator();
  const logger = new MemoryLogger();
  const metrics = new MemoryMetrics(METRICS) as unknown as AppMetrics;
  const issuer = new FakeTokenIssuer({ clock });
  const outbox = { uow, clock, logger, metrics, maxAttempts: 5, backoffBaseMs: 5_000, backoffMaxMs: 60_000, confirmPollMs: 1_000, stuckAfterMs: 60_000 };

  const { deployed, owe } = owedDeliveries({ uow, issuer, ids, clock });

  const errors = () => logger.lines.filter((l) => l.level === 'error').map((l) => l.message);
  const withoutEffect = (kind: string) => metrics.total('transactions_without_effect_total', { kind });
  return { clock, uow, ids, logger, metrics, issuer, outbox, deployed, owe, errors, withoutEffect };
}

describe('confirmed only by its effect', () => {
  it("a delivery of a DEPLOYED token whose contract is not on the chain stays SENT: never CONFIRMED, never sent again, an operator told", async () => {
    const { clock, uow, issuer, outbox, deployed, owe, errors, withoutEffect } = setup();
    const worker = new DeliveryWorker({ ...outbox, issuer });
    const token = await deployed('Gone');
    // The books say DEPLOYED; the chain has no contract there (its devnet was started over).
    issuer.removeCode(TESTNET, token.address);
    const id = await owe(token.tokenId, WALLETS[0]!, 1_000n);
    await worker.runOnce();
    const sent = uow.db.deliveries.get(id)!;
    expect(sent.state).toBe('SENT');
    const broadcasts = issuer.broadcasts;
    for (let i = 0; i < 5; i++) {
      clock.advance(60_000);
      await worker.runOnce();
    }
    expect(uow.db.deliveries.get(id)).toMatchObject({ state: 'SENT', txHash: sent.txHash, attempts: 1, lastError: expect.stringContaining('without its effect') });
    expect(uow.db.events.map((e) => e.type)).not.toContain('delivery.confirmed');
    // Looked at again, neither broadcast nor signed anew: the chain it would go to is not the books'.
    expect(issuer.broadcasts - broadcasts).toBe(0);
    expect(errors().filter((m) => m.startsWith('delivery mined as a success without its effect'))).toHaveLength(5);
    expect(await withoutEffect('delivery')).toBe(5);
  });

  it('a batch of deliveries mined without its Transfer logs stays SENT with its deliveries, not split, not sent again', async () => {
    const { clock, uow, ids, issuer, outbox, deployed, owe, errors, withoutEffect } = setup();
    const worker = new DeliveryWorker({ ...outbox, issuer, ids, batchMax: 100 });
    const token = await deployed('Batch Gone');
    const owed = [await owe(token.tokenId, WALLETS[0]!, 1n), await owe(token.tokenId, WALLETS[1]!, 2n)];
    issuer.scriptNext('no-effect');
    await worker.runOnce();
    const [batch] = uow.db.deliveryBatches.values();
    expect(batch).toMatchObject({ state: 'SENT', size: 2 });
    for (let i = 0; i < 3; i++) {
      clock.advance(60_000);
      await worker.runOnce();
    }
    expect([...uow.db.deliveryBatches.values()]).toEqual([expect.objectContaining({ batchId: batch!.batchId, state: 'SENT' })]);
    for (const id of owed) expect(uow.db.deliveries.get(id)).toMatchObject({ state: 'SENT', batchId: batch!.batchId, attempts: 1 });
    expect(await issuer.balanceOf(TESTNET, token.address, WALLETS[0]!)).toBe(0n);
    expect(errors().filter((m) => m.startsWith('delivery batch mined as a success without its Transfer logs'))).toHaveLength(3);
    expect(await withoutEffect('delivery_batch')).toBe(3);
  });

  it('a payout whose USDC has no code on the chain stays SENT: not CONFIRMED, not paid again', async () => {
    const { clock, uow, outbox, errors, withoutEffect } = setup();
    const sender = new FakePayoutSender();
    const worker = new PayoutWorker({ ...outbox, sender });
    const p = payout({ createdAt: clock.now(), updatedAt: clock.now(), nextAttemptAt: clock.now() });
    await uow.run((s) => s.payouts.enqueue(p));
    sender.removeAssetCode(TESTNET);
    await worker.runOnce();
    for (let i = 0; i < 3; i++) {
      clock.advance(60_000);
      await worker.runOnce();
    }
    expect(uow.db.payouts.get(p.payoutId)).toMatchObject({ state: 'SENT', attempts: 1 });
    expect(uow.db.events.map((e) => e.type)).toEqual(['payout.sent']);
    expect(sender.transfers).toEqual([]);
    expect(errors()).toHaveLength(3);
    expect(await withoutEffect('payout')).toBe(3);
  });

  it('a deployment through a factory with no code stays SENT: the token is never DEPLOYED', async () => {
    const { clock, uow, issuer, outbox, errors, withoutEffect } = setup();
    const worker = new DeploymentWorker({ ...outbox, issuer });
    const t = tokenFixture({ name: 'Never There' });
    const address = issuer.predictAddress(TESTNET, { tokenId: t.tokenId, name: t.name, symbol: t.symbol, totalSupply: t.params.totalSupply });
    const d = newDeployment({ deploymentId: 'dep_1', network: TESTNET, tokenId: t.tokenId, address, now: clock.now() });
    await uow.transaction(async (s) => {
      await s.tokens.insert({ ...t, address });
      await s.deployments.enqueue(d);
    });
    issuer.removeCode(TESTNET, issuer.factory(TESTNET));
    await worker.runOnce();
    for (let i = 0; i < 3; i++) {
      clock.advance(60_000);
      await worker.runOnce();
    }
    expect(uow.db.deployments.get(d.deploymentId)).toMatchObject({ state: 'SENT', attempts: 1 });
    expect(uow.db.tokens.get(t.tokenId)!.deployment.state).not.toBe('DEPLOYED');
    expect(await issuer.isDeployed(TESTNET, address)).toBe(false);
    expect(errors()).toHaveLength(3);
    expect(await withoutEffect('deployment')).toBe(3);
  });
});
