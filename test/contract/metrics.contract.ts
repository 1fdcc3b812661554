import { describe, expect, it } from 'vitest';
import type { MetricCatalogue, Metrics } from '../../src/ports/metrics.js';

/** A small catalogue of each kind, under its own prefix. */
export const CONTRACT_CATALOGUE = {
  prefix: 'contract_',
  counters: { things_total: { help: 'Things by kind.', labels: ['kind', 'state'] }, plain_total: { help: 'No labels.', labels: [] } },
  histograms: { wait_seconds: { help: 'Waits.', labels: ['kind'], buckets: [0.1, 1, 10] } },
  gauges: { depth: { help: 'Depth by kind.', labels: ['kind'] }, broken: { help: 'A reader that fails.', labels: ['kind'] } },
} as const satisfies MetricCatalogue;

export type MakeMetrics = (catalogue: MetricCatalogue) => Metrics;

/** Parses the text exposition into `name{labels}` → value (comments dropped). */
export function parseExposition(text: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (!line || line.startsWith('#')) continue;
    const at = line.lastIndexOf(' ');
    out.set(line.slice(0, at), Number(line.slice(at + 1)));
  }
  return out;
}

export function metricsContract(name: string, make: MakeMetrics) {
  describe(`Metrics contract: ${name}`, () => {
    it('counts per series; total sums the series that match', async () => {
      const m = make(CONTRACT_CATALOGUE);
      m.increment('things_total', { kind: 'a', state: 'x' });
      m.increment('things_total', { kind: 'a', state: 'y' }, 2);
      m.increment('things_total', { kind: 'b', state: 'x' });
      m.increment('plain_total');
      expect(await m.total('things_total')).toBe(4);
      expect(await m.total('things_total', { kind: 'a' })).toBe(3);
      expect(await m.total('things_total', { state: 'x' })).toBe(2);
      expect(await m.total('things_total', { kind: 'c' })).toBe(0);
      expect(await m.total('plain_total')).toBe(1);
      const series = parseExposition((await m.exposition()).text);
      expect(series.get('contract_things_total{kind="a",state="y"}')).toBe(2);
      expect(series.get('contract_plain_total')).toBe(1);
    });

    it('a generation that grows whenever a counter moves, and stands while none does', async () => {
      const m = make(CONTRACT_CATALOGUE);
      const start = m.generation;
      m.observe('wait_seconds', 0.1);
      m.increment('unknown_total');
      expect(m.generation).toBe(start);
      m.increment('things_total', { kind: 'a' });
      const moved = m.generation;
      expect(moved).toBeGreaterThan(start);
      expect(await m.total('things_total')).toBe(1);
      expect(m.generation).toBe(moved);
      m.increment('plain_total', {}, 0.5);
      expect(m.generation).toBeGreaterThan(moved);
    });

    it('never throws: undeclared labels are dropped, omitted ones are empty, unknown names ignored', async () => {
      const m = make(CONTRACT_CATALOGUE);
      m.increment('things_total', { kind: 'a', wallet: '0xabc' });
      m.increment('no_such_counter');
      m.observe('no_such_histogram', 1);
      m.observe('wait_seconds', Number.NaN, { kind: 'a' });
      const text = (await m.exposition()).text;
      expect(parseExposition(text).get('contract_things_total{kind="a",state=""}')).toBe(1);
      expect(text).not.toContain('0xabc');
      expect(text).not.toContain('no_such');
    });

    it('observes into cumulative buckets with a sum and a count', async () => {
      const m = make(CONTRACT_CATALOGUE);
      for (const v of [0.05, 0.5, 0.5, 20]) m.observe('wait_seconds', v, { kind: 'a' });
      const series = parseExposition((await m.exposition()).text);
      expect(series.get('contract_wait_seconds_bucket{le="0.1",kind="a"}') ?? series.get('contract_wait_seconds_bucket{kind="a",le="0.1"}')).toBe(1);
      expect(series.get('contract_wait_seconds_bucket{le="1",kind="a"}') ?? series.get('contract_wait_seconds_bucket{kind="a",le="1"}')).toBe(3);
      expect(series.get('contract_wait_seconds_bucket{le="+Inf",kind="a"}') ?? series.get('contract_wait_seconds_bucket{kind="a",le="+Inf"}')).toBe(4);
      expect(series.get('contract_wait_seconds_sum{kind="a"}')).toBeCloseTo(21.05);
      expect(series.get('contract_wait_seconds_count{kind="a"}')).toBe(4);
    });

    it('reads gauges at each collection, the latest reader winning; a failing reader empties only its gauge', async () => {
      const m = make(CONTRACT_CATALOGUE);
      let depth = 3;
      m.collect('depth', () => [{ labels: { kind: 'a' }, value: 1 }]);
      m.collect('depth', async () => [{ labels: { kind: 'a' }, value: depth }, { labels: { kind: 'b' }, value: 0 }]);
      m.collect('broken', () => {
        throw new Error('database down');
      });
      m.increment('plain_total');
      let series = parseExposition((await m.exposition()).text);
      expect(series.get('contract_depth{kind="a"}')).toBe(3);
      expect(series.get('contract_depth{kind="b"}')).toBe(0);
      expect([...series.keys()].some((k) => k.startsWith('contract_broken'))).toBe(false);
      expect(series.get('contract_plain_total')).toBe(1);
      depth = 7;
      series = parseExposition((await m.exposition()).text);
      expect(series.get('contract_depth{kind="a"}')).toBe(7);
    });

    it('exposes the Prometheus text format, with HELP and TYPE for every instrument', async () => {
      const m = make(CONTRACT_CATALOGUE);
      const { contentType, text } = await m.exposition();
      expect(contentType).toMatch(/^text\/plain; version=0\.0\.4/);
      for (const [n, type] of [['contract_things_total', 'counter'], ['contract_wait_seconds', 'histogram'], ['contract_depth', 'gauge']]) {
        expect(text).toContain(`# TYPE ${n} ${type}`);
        expect(text).toContain(`# HELP ${n} `);
      }
    });

    it('escapes label values', async () => {
      const m = make(CONTRACT_CATALOGUE);
      m.increment('things_total', { kind: 'a "quoted" \\ value', state: 'x' });
      expect((await m.exposition()).text).toContain('contract_things_total{kind="a \\"quoted\\" \\\\ value",state="x"} 1');
    });
  });
}
