/**
 * GET /health probes the database, the chain and the facilitator at most once a second: a load
 * balancer polling it hard costs one round of probes a second, while the counters stay current.
 * While neither moved, the document is the same object (its bytes are kept, decision 0062).
 */
import { describe, expect, it } from 'vitest';
import { MemoryUnitOfWork } from '../../src/adapters/persistence/memory/memory-unit-of-work.js';
import type { UnitOfWork } from '../../src/ports/unit-of-work.js';
import { json, ShiftableClock, startTestService } from '../support/service.js';
import { FakeChainProbe } from '../../src/adapters/chain/fake/fake-chain-probe.js';
import { PRODUCTION } from '../../src/domain/network.js';

describe('GET /health', () => {
  it('runs its probes once a second and answers from that round in between', async () => {
    const store = new MemoryUnitOfWork();
    let reads = 0;
    const uow: UnitOfWork = { run: (w) => (reads++, store.run(w)), transaction: (w) => store.transaction(w), close: () => store.close() };
    const chain = new FakeChainProbe();
    const chainProbes = () => chain.probes.get(PRODUCTION);
    const clock = new ShiftableClock();
    const service = await startTestService({ ports: { uow, clock, chainProbe: chain } });
    try {
      for (let i = 0; i < 3; i++) expect((await json(await fetch(`${service.url}/health`))).data.checks).toEqual({ database: 'ok', chain: 'ok', facilitator: 'ok', rateLimiter: 'ok' });
      expect([reads, chainProbes()]).toEqual([1, 1]);
      service.application.metrics.increment('siwx_proofs_total', { result: 'accepted' });
      expect((await json(await fetch(`${service.url}/health`))).data.counters['siwx.accepted']).toBe(1);
      const kept = await service.application.health();
      expect(await service.application.health()).toBe(kept);
      // Known without waiting while nothing moved (the lane before Koa answers with it at once).
      expect(service.application.healthNow()).toBe(kept);
      service.application.metrics.increment('siwx_proofs_total', { result: 'accepted' });
      expect(service.application.healthNow()).toBeUndefined();
      const moved = await service.application.health();
      expect(service.application.healthNow()).toBe(moved);
      expect(moved).not.toBe(kept);
      expect(moved.report.counters['siwx.accepted']).toBe(2);
      expect((await json(await fetch(`${service.url}/health`))).data.counters['siwx.accepted']).toBe(2);
      clock.offsetMs += 1_000;
      await fetch(`${service.url}/health`);
      expect([reads, chainProbes()]).toEqual([2, 2]);
      // A new round is a new document, though nothing in it changed.
      clock.offsetMs += 1_000;
      expect(service.application.healthNow()).toBeUndefined();
      expect(await service.application.health()).not.toBe(moved);
    } finally {
      await service.stop();
    }
  });
});
