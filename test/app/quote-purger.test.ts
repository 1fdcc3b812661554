/** Expired quotes do not pile up (docs/): the worker purges them on a schedule, in bounded runs. */
import { describe, expect, it } from 'vitest';
import { FakeClock } from '../../src/adapters/clock/fake/fake-clock.js';
import { MemoryUnitOfWork } from '../../src/adapters/persistence/memory/memory-unit-of-work.js';
import { QuotePurger } from '../../src/app/workers/quote-purger.js';
import { assetQuote, quote } from '../support/fixtures.js';
import { json, startTestService } from '../support/service.js';

const silent = { debug() {}, info() {}, warn() {}, error() {} };

describe('QuotePurger', () => {
  it('deletes quotes past expiry plus retention, at most a batch per run, then waits for the interval', async () => {
    const clock = new FakeClock('2026-01-01T00:00:00Z');
    const uow = new MemoryUnitOfWork();
    await uow.run(async (s) => {
      for (let i = 0; i < 5; i++) await s.quotes.save(quote({ expiresAt: new Date(clock.now().getTime() + 60_000) }));
      await s.quotes.save(quote({ expiresAt: new Date(clock.now().getTime() + 3_600_000) }));
    });
    const purger = new QuotePurger({ uow, clock, logger: silent, retentionMs: 600_000, batch: 2, intervalMs: 60_000 });
    expect(await purger.runOnce()).toBe(0); // nothing is old enough yet
    clock.advance(60_000 + 600_000 + 1);
    expect(await purger.runOnce()).toBe(2);
    expect(await purger.runOnce()).toBe(2); // a full batch: the backlog goes on at once
    expect(await purger.runOnce()).toBe(1); // a short run: the next waits for the interval
    await uow.run((s) => s.quotes.save(quote({ expiresAt: new Date(0) })));
    expect(await purger.runOnce()).toBe(0);
    clock.advance(60_000);
    expect(await purger.runOnce()).toBe(1);
    expect(uow.db.quotes.size).toBe(1); // the unexpired one stays
  });

  it('purges the asset quotes 402s held (EURC) once they are expired and past retention', async () => {
    const clock = new FakeClock('2026-01-01T00:00:00Z');
    const uow = new MemoryUnitOfWork();
    const held = (i: number, ms: number) => assetQuote({ holdKey: `k${i}`, expiresAt: new Date(clock.now().getTime() + ms) });
    await uow.run(async (s) => {
      for (let i = 0; i < 3; i++) await s.assetQuotes.hold(held(i, 60_000), clock.now());
      await s.assetQuotes.hold(held(9, 3_600_000), clock.now());
    });
    const purger = new QuotePurger({ uow, clock, logger: silent, retentionMs: 600_000, batch: 10, intervalMs: 60_000 });
    expect(await purger.runOnce()).toBe(0);
    clock.advance(60_000 + 600_000 + 1);
    expect(await purger.runOnce()).toBe(3);
    expect([...uow.db.assetQuotes.keys()]).toEqual(['k9']);
  });

  it('runs with the service workers: free quotes written by GET /api/quote are purged', async () => {
    const uow = new MemoryUnitOfWork();
    const service = await startTestService({ ports: { uow } });
    try {
      await uow.run((s) => s.quotes.save(quote({ expiresAt: new Date(Date.now() - 3_600_000) })));
      const before = uow.db.quotes.size;
      expect(before).toBeGreaterThan(0);
      await service.runWorkers();
      expect(uow.db.quotes.size).toBe(before - 1);
      expect((await json(await fetch(`${service.url}/health`))).success).toBe(true);
    } finally {
      await service.stop();
    }
  });
});
