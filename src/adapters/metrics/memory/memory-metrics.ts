/**
 * The Metrics port in memory, for tests: the same catalogue and the same text format as the
 * prom-client adapter (counters, gauges, cumulative histogram buckets), no process metrics, and
 * every observation kept so a test can read it back.
 */
import type { GaugeReader, GaugeSample, MetricCatalogue, MetricDefinition, MetricLabels, Metrics } from '../../../ports/metrics.js';

type Series<T> = Map<string, { labels: Record<string, string>; value: T }>;

export class MemoryMetrics implements Metrics {
  private readonly counters = new Map<string, Series<number>>();
  private readonly histograms = new Map<string, Series<number[]>>();
  private readonly readers = new Map<string, GaugeReader>();
  private moves = 0;

  constructor(private readonly catalogue: MetricCatalogue) {}

  get generation(): number {
    return this.moves;
  }

  increment(counter: string, labels?: MetricLabels, by = 1): void {
    const def = this.catalogue.counters[counter];
    if (!def) return;
    const series = seriesOf(this.counters, counter);
    const l = normalize(def, labels);
    const key = keyOf(l);
    series.set(key, { labels: l, value: (series.get(key)?.value ?? 0) + by });
    this.moves++;
  }

  observe(histogram: string, value: number, labels?: MetricLabels): void {
    const def = this.catalogue.histograms[histogram];
    if (!def || !Number.isFinite(value)) return;
    const series = seriesOf(this.histograms, histogram);
    const l = normalize(def, labels);
    const key = keyOf(l);
    const entry = series.get(key) ?? { labels: l, value: [] };
    entry.value.push(value);
    series.set(key, entry);
  }

  collect(gauge: string, read: GaugeReader): void {
    this.readers.set(gauge, read);
  }

  async total(counter: string, match: MetricLabels = {}): Promise<number> {
    let sum = 0;
    for (const { labels, value } of this.counters.get(counter)?.values() ?? []) {
      if (Object.entries(match).every(([k, v]) => labels[k] === String(v))) sum += value;
    }
    return sum;
  }

  /** Every value observed by `histogram` whose labels include `match`. */
  observations(histogram: string, match: MetricLabels = {}): number[] {
    const out: number[] = [];
    for (const { labels, value } of this.histograms.get(histogram)?.values() ?? []) {
      if (Object.entries(match).every(([k, v]) => labels[k] === String(v))) out.push(...value);
    }
    return out;
  }

  async exposition(): Promise<{ contentType: string; text: string }> {
    const { prefix } = this.catalogue;
    const lines: string[] = [];
    const head = (name: string, help: string, type: string) => lines.push(`# HELP ${name} ${help}`, `# TYPE ${name} ${type}`);
    for (const [name, def] of Object.entries(this.catalogue.counters)) {
      head(prefix + name, def.help, 'counter');
      for (const s of this.counters.get(name)?.values() ?? []) lines.push(`${prefix}${name}${render(s.labels)} ${s.value}`);
    }
    for (const [name, def] of Object.entries(this.catalogue.histograms)) {
      head(prefix + name, def.help, 'histogram');
      for (const s of this.histograms.get(name)?.values() ?? []) {
        for (const le of [...def.buckets, Infinity]) {
          const count = s.value.filter((v) => v <= le).length;
          lines.push(`${prefix}${name}_bucket${render({ ...s.labels, le: le === Infinity ? '+Inf' : String(le) })} ${count}`);
        }
        lines.push(`${prefix}${name}_sum${render(s.labels)} ${s.value.reduce((a, b) => a + b, 0)}`);
        lines.push(`${prefix}${name}_count${render(s.labels)} ${s.value.length}`);
      }
    }
    for (const [name, def] of Object.entries(this.catalogue.gauges)) {
      head(prefix + name, def.help, 'gauge');
      let samples: GaugeSample[];
      try {
        samples = (await this.readers.get(name)?.()) ?? [];
      } catch {
        samples = []; // as prom-client's adapter: a failed reader leaves its gauge empty
      }
      for (const s of samples) lines.push(`${prefix}${name}${render(normalize(def, s.labels))} ${s.value}`);
    }
    return { contentType: 'text/plain; version=0.0.4; charset=utf-8', text: lines.join('\n') + '\n' };
  }
}

function seriesOf<T>(all: Map<string, Series<T>>, name: string): Series<T> {
  let s = all.get(name);
  if (!s) all.set(name, (s = new Map()));
  return s;
}

function normalize(def: MetricDefinition, labels: MetricLabels = {}): Record<string, string> {
  return Object.fromEntries(def.labels.map((name) => [name, String(labels[name] ?? '')]));
}

const keyOf = (labels: Record<string, string>) => JSON.stringify(labels);

function render(labels: Record<string, string>): string {
  const parts = Object.entries(labels).map(([k, v]) => `${k}="${v.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n')}"`);
  return parts.length ? `{${parts.join(',')}}` : '';
}
