/**
 * Deliveries in batches over the fake chain (docs/decisions/0035): the deliveries ready together
 * go out as one custody transaction, recorded before it is broadcast, never sent twice, and a
 * batch that fails is split into single sends — every way a batch can go.
 */
import { describe, expect, it } from 'vitest';
import { FakeClock } from '../../src/adapters/clock/fake/fake-clock.js';
import { SequentialIdGenerator } from '../../src/adapters/ids/sequential/sequential-id-generator.js';
import { MemoryUnitOfWork } from '../../src/adapters/persistence/memory/memory-unit-of-work.js';
import { FakeTokenIssuer } from '../../src/adapters/token/fake/fake-token-issuer.js';
import { DeliveryWorker, type DeliveryWorkerDeps } from '../../src/app/workers/token-workers.js';
import { TESTNET } from '../../src/domain/network.js';
import type { TokenIssuer } from '../../src/ports/token-issuer.js';
import type { UnitOfWork } from '../../src/ports/unit-of-work.js';
import { testDatabases } from '../support/databases.js';
import { token as tokenFixture } from '../support/fixtures.js';
import { owedDeliveries } from '../support/deliveries.js';

const silent = { debug() {}, info() {}, warn() {}, error() {} };
const WALLETS = ['0x70997970C51812dc3A010C7d01b50e0d17dc79C8', '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC', '0x90F79bf6EB2c4f870365E785982E1f101E93b906'];

/** The worker over the fake chain, on memory unless `real` (a database's unit of work) is given. */
async function setup(over: Partial<DeliveryWorkerDeps> & { batchTransfers?: boolean } = {}, real?: UnitOfWork) {
  const clock = new FakeClock('2026-01-01T00:00:00Z');
  const memory = new MemoryUnitOfWork();
  const uow = real ?? memory;
  const ids = new SequentialIdGenerator();
  const issuer = new FakeTokenIssuer({ clock, ...(over.batchTransfers === false ? { batchTransfers: false } : {}) });
  const deps: DeliveryWorkerDeps = {
    uow,
    clock,
    issuer,
    ids,
    logger: silent,
    batchMax: 100,
    maxAttempts: 5,
    backoffBaseMs: 5_000,
    backoffMaxMs: 60_000,
    confirmPollMs: 1_000,
    stuckAfterMs: 60_000,
    ...over,
  };
  const worker = new DeliveryWorker(deps);

  const { deployed, owe } = owedDeliveries({ uow, issuer, ids, clock });

  const delivery = (id: string) => memory.db.deliveries.get(id)!;
  const batches = () => [...memory.db.deliveryBatches.values()];
  const pass = async (ms = 1_000) => {
    clock.advance(ms);
    return worker.runOnce();
  };
  return { clock, uow, memory, issuer, worker, deployed, owe, delivery, batches, pass, deps };
}

describe('deliveries in batches', () => {
  it('the deliveries ready together go out as one transaction, every amount exact, then all CONFIRMED', async () => {
    const { issuer, deployed, owe, delivery, batches, pass, memory } = await setup();
    const [a, b] = [await deployed('Alpha'), await deployed('Beta')];
    const ids = [await owe(a.tokenId, WALLETS[0]!, 100n), await owe(b.tokenId, WALLETS[1]!, 200n), await owe(a.tokenId, WALLETS[0]!, 300n)];
    const before = issuer.broadcasts;
    await pass(0);
    expect(issuer.broadcasts - before).toBe(1);
    const [batch] = batches();
    expect(batch).toMatchObject({ state: 'SENT', size: 3 });
    for (const id of ids) expect(delivery(id)).toMatchObject({ state: 'SENT', txHash: batch!.txHash, rawTx: null, batchId: batch!.batchId, attempts: 1 });

    await pass();
    expect(batches()[0]!.state).toBe('CONFIRMED');
    for (const id of ids) expect(delivery(id)).toMatchObject({ state: 'CONFIRMED', txHash: batch!.txHash });
    expect(await issuer.balanceOf(TESTNET, a.address, WALLETS[0]!)).toBe(400n);
    expect(await issuer.balanceOf(TESTNET, b.address, WALLETS[1]!)).toBe(200n);
    expect(memory.db.events.map((e) => e.type)).toEqual([...ids.map(() => 'delivery.sent'), ...ids.map(() => 'delivery.confirmed')]);
  });

  it('a delivery ready alone is sent alone; a backlog past the batch size goes out in several batches', async () => {
    const { issuer, deployed, owe, delivery, batches, pass } = await setup({ batchMax: 3 });
    const t = await deployed();
    const alone = await owe(t.tokenId, WALLETS[0]!, 1n);
    await pass(0);
    expect(delivery(alone)).toMatchObject({ state: 'SENT', batchId: null });
    expect(batches()).toHaveLength(0);
    const many = [];
    for (let i = 0; i < 7; i++) many.push(await owe(t.tokenId, WALLETS[i % 3]!, BigInt(10 + i)));
    await pass(); // 3 + 3 in batches; the seventh, left alone in its pass, alone
    expect(batches().map((b) => b.size)).toEqual([3, 3]);
    await pass();
    for (const id of [alone, ...many]) expect(delivery(id).state).toBe('CONFIRMED');
    expect(await issuer.balanceOf(TESTNET, t.address, WALLETS[0]!)).toBe(1n + 10n + 13n + 16n);
  });

  it('a crash after the batch is recorded and before it is broadcast: the same transaction is broadcast on the next pass, delivered once', async () => {
    let crash = true;
    const { issuer, deployed, owe, delivery, batches, pass } = await setup({
      batchHooks: {
        afterRecord: async () => {
          if (!crash) return;
          crash = false;
          throw new Error('simulated crash between the record and the broadcast');
        },
      },
    });
    const t = await deployed();
    const ids = [await owe(t.tokenId, WALLETS[0]!, 5n), await owe(t.tokenId, WALLETS[1]!, 6n)];
    await pass(0);
    const [batch] = batches();
    expect(batch!.state).toBe('SENT');
    expect(await issuer.status(TESTNET, batch!.txHash, batch!.rawTx)).toBe('pending'); // never sent
    expect(await issuer.balanceOf(TESTNET, t.address, WALLETS[0]!)).toBe(0n);
    await pass(); // followed: broadcast again, the same transaction
    await pass();
    expect(batches()).toHaveLength(1);
    expect(batches()[0]).toMatchObject({ state: 'CONFIRMED', txHash: batch!.txHash });
    for (const id of ids) expect(delivery(id).state).toBe('CONFIRMED');
    expect(await issuer.balanceOf(TESTNET, t.address, WALLETS[0]!)).toBe(5n);
    expect(await issuer.balanceOf(TESTNET, t.address, WALLETS[1]!)).toBe(6n);
  });

  it.each([
    ['reverted', 'REVERTED', 'batch reverted'],
    ['drop', 'DROPPED', 'batch dropped'],
  ] as const)('a batch %s is split: each delivery goes back to PENDING and is sent alone, and lands once', async (outcome, state, error) => {
    const { issuer, deployed, owe, delivery, batches, pass } = await setup();
    const t = await deployed();
    const ids = [await owe(t.tokenId, WALLETS[0]!, 7n), await owe(t.tokenId, WALLETS[1]!, 8n), await owe(t.tokenId, WALLETS[2]!, 9n)];
    issuer.scriptNext(outcome);
    await pass(0);
    const batchTx = batches()[0]!.txHash;
    await pass();
    expect(batches()[0]!.state).toBe(state);
    for (const id of ids) expect(delivery(id)).toMatchObject({ state: 'PENDING', batchId: null, txHash: null, lastError: error, attempts: 1 });
    expect(await issuer.balanceOf(TESTNET, t.address, WALLETS[0]!)).toBe(0n);
    await pass(5_000); // the backoff: each alone now
    const hashes = ids.map((id) => delivery(id).txHash);
    expect(new Set(hashes).size).toBe(3);
    expect(hashes).not.toContain(batchTx);
    for (const id of ids) expect(delivery(id)).toMatchObject({ state: 'SENT', batchId: null, attempts: 2 });
    expect(batches()).toHaveLength(1);
    await pass();
    for (const id of ids) expect(delivery(id).state).toBe('CONFIRMED');
    expect(await issuer.balanceOf(TESTNET, t.address, WALLETS[0]!)).toBe(7n);
    expect(await issuer.balanceOf(TESTNET, t.address, WALLETS[1]!)).toBe(8n);
    expect(await issuer.balanceOf(TESTNET, t.address, WALLETS[2]!)).toBe(9n);
  });

  it('a batch that waits too long has the nonce gap below it filled, and is not left SENT', async () => {
    const { issuer, deployed, owe, batches, pass } = await setup();
    const t = await deployed();
    await owe(t.tokenId, WALLETS[0]!, 1n);
    await owe(t.tokenId, WALLETS[1]!, 2n);
    issuer.scriptNext('hold');
    await pass(0);
    for (let i = 0; i < 3; i++) await pass();
    expect(batches()[0]!.state).toBe('SENT');
    expect(issuer.unblocks).toBe(0);
    await pass(60_000);
    expect(issuer.unblocks).toBe(1);
    await pass();
    expect(batches()[0]!.state).toBe('CONFIRMED');
    expect(await issuer.balanceOf(TESTNET, t.address, WALLETS[1]!)).toBe(2n);
  });

  it('another worker takes the deliveries meanwhile: this batch is not recorded, never broadcast, and its nonce goes back', async () => {
    const { issuer, deployed, owe, delivery, batches, pass, deps } = await setup();
    const t = await deployed();
    const ids = [await owe(t.tokenId, WALLETS[0]!, 3n), await owe(t.tokenId, WALLETS[1]!, 4n)];
    const other = new DeliveryWorker(deps);
    let raced = false;
    // This worker's issuer lets the other worker run a whole pass while it signs.
    const slow = new Proxy(issuer, {
      get(target, prop, receiver) {
        const value = Reflect.get(target, prop, receiver) as unknown;
        if (prop !== 'prepareBatchTransfer') return typeof value === 'function' ? value.bind(target) : value;
        return async (...args: Parameters<TokenIssuer['prepareBatchTransfer']>) => {
          if (!raced) {
            raced = true;
            await other.runOnce();
          }
          return target.prepareBatchTransfer(...args);
        };
      },
    });
    const racing = new DeliveryWorker({ ...deps, issuer: slow });
    const [releases, broadcasts] = [issuer.releases, issuer.broadcasts];
    await racing.runOnce();
    expect(batches()).toHaveLength(1); // the other worker's
    expect(issuer.releases - releases).toBe(1);
    expect(issuer.broadcasts - broadcasts).toBe(1);
    await pass();
    for (const id of ids) expect(delivery(id).state).toBe('CONFIRMED');
    expect(await issuer.balanceOf(TESTNET, t.address, WALLETS[0]!)).toBe(3n);
  });

  it("a network whose factory cannot batch sends each delivery alone; a token not deployed yet waits for its contract", async () => {
    const { deployed, owe, delivery, batches, pass, uow } = await setup({ batchTransfers: false });
    const t = await deployed();
    const ids = [await owe(t.tokenId, WALLETS[0]!, 1n), await owe(t.tokenId, WALLETS[1]!, 2n)];
    const waiting = tokenFixture();
    await uow.transaction((s) => s.tokens.insert(waiting));
    const later = await owe(waiting.tokenId, WALLETS[2]!, 3n);
    await pass(0);
    expect(batches()).toHaveLength(0);
    for (const id of ids) expect(delivery(id)).toMatchObject({ state: 'SENT', batchId: null });
    expect(delivery(later)).toMatchObject({ state: 'PENDING', attempts: 0 });
    await pass();
    for (const id of ids) expect(delivery(id).state).toBe('CONFIRMED');
  });
});

/**
 * The same moves on the real databases, where a batch's members move in one transaction (and on
 * PostgreSQL in one statement, decision 0055): all of them or, when one was taken, none.
 */
describe.each(testDatabases('batches', { changeFeed: false }))('deliveries in batches (%s)', (_name, open) => {
  it("a batch's members move together: SENT in the transaction that records it, then CONFIRMED, each event once", async () => {
    const { uow, cleanup } = await open();
    try {
      const { issuer, deployed, owe, pass } = await setup({}, uow);
      const get = (id: string) => uow.run((s) => s.deliveries.get(id));
      const t = await deployed();
      const ids = [await owe(t.tokenId, WALLETS[0]!, 11n), await owe(t.tokenId, WALLETS[1]!, 12n), await owe(t.tokenId, WALLETS[2]!, 13n)];
      await pass(0);
      const sent = await Promise.all(ids.map(get));
      const batchId = sent[0]!.batchId!;
      expect(await uow.run((s) => s.deliveryBatches.get(batchId))).toMatchObject({ state: 'SENT', size: 3 });
      for (const d of sent) expect(d).toMatchObject({ state: 'SENT', batchId, attempts: 1 });
      await pass();
      for (const d of await Promise.all(ids.map(get))) expect(d!.state).toBe('CONFIRMED');
      const events = await uow.run((s) => s.events.readAfter(0, { tokenId: t.tokenId }, 100));
      expect(events.map((e) => e.type).sort()).toEqual([...Array(3).fill('delivery.confirmed'), ...Array(3).fill('delivery.sent')]);
      expect(await issuer.balanceOf(TESTNET, t.address, WALLETS[2]!)).toBe(13n);
    } finally {
      await uow.close();
      await cleanup();
    }
  });

  it('another worker takes one member meanwhile: none of this batch is recorded, its nonce goes back, every delivery lands once', async () => {
    const { uow, cleanup } = await open();
    try {
      const { issuer, deployed, owe, pass, deps } = await setup({}, uow);
      const get = (id: string) => uow.run((s) => s.deliveries.get(id));
      const t = await deployed();
      const ids = [await owe(t.tokenId, WALLETS[0]!, 21n), await owe(t.tokenId, WALLETS[1]!, 22n)];
      // While this worker signs its batch, the second delivery is sent alone by someone else.
      const slow = new Proxy(issuer, {
        get(target, prop, receiver) {
          const value = Reflect.get(target, prop, receiver) as unknown;
          if (prop !== 'prepareBatchTransfer') return typeof value === 'function' ? value.bind(target) : value;
          return async (...args: Parameters<TokenIssuer['prepareBatchTransfer']>) => {
            const d = (await get(ids[1]!))!;
            await uow.run((s) => s.deliveries.update({ ...d, state: 'SENT', txHash: '0xalone', attempts: 1 }, 'PENDING'));
            return target.prepareBatchTransfer(...args);
          };
        },
      });
      const releases = issuer.releases;
      await new DeliveryWorker({ ...deps, issuer: slow }).runOnce();
      expect(issuer.releases - releases).toBe(1); // the batch's nonce
      // The first delivery's move rolled back with the lost one: no batch holds it, it goes alone.
      expect(await get(ids[0]!)).toMatchObject({ batchId: null });
      expect(await get(ids[1]!)).toMatchObject({ state: 'SENT', txHash: '0xalone', batchId: null });
      await pass(0);
      await pass();
      expect(await get(ids[0]!)).toMatchObject({ state: 'CONFIRMED', batchId: null, attempts: 1 });
      expect(await issuer.balanceOf(TESTNET, t.address, WALLETS[0]!)).toBe(21n);
    } finally {
      await uow.close();
      await cleanup();
    }
  });
});
