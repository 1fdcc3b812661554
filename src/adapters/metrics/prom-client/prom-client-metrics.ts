/**
 * The Metrics port on prom-client: one registry per service, the catalogue's instruments under its
 * prefix, and (by default) Node's process metrics under their usual names (`process_*`,
 * `nodejs_*`), which the common Node.js dashboards expect.
 */
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry, type LabelValues } from 'prom-client';
import type { GaugeReader, MetricCatalogue, MetricDefinition, MetricLabels, Metrics } from '../../../ports/metrics.js';

export interface PromClientMetricsOptions {
  /** Node's process metrics (CPU, memory, event-loop lag, GC); default true. */
  processMetrics?: boolean;
}

type Labels = LabelValues<string>;

export class PromClientMetrics implements Metrics {
  readonly registry = new Registry();
  private readonly counters = new Map<string, { counter: Counter; def: MetricDefinition }>();
  private readonly histograms = new Map<string, { histogram: Histogram; def: MetricDefinition }>();
  private readonly readers = new Map<string, GaugeReader>();
  private moves = 0;

  constructor(catalogue: MetricCatalogue, options: PromClientMetricsOptions = {}) {
    const registers = [this.registry];
    for (const [name, def] of Object.entries(catalogue.counters)) {
      this.counters.set(name, { def, counter: new Counter({ name: catalogue.prefix + name, help: def.help, labelNames: [...def.labels], registers }) });
    }
    for (const [name, def] of Object.entries(catalogue.histograms)) {
      const histogram = new Histogram({ name: catalogue.prefix + name, help: def.help, labelNames: [...def.labels], buckets: [...def.buckets], registers });
      this.histograms.set(name, { def, histogram });
    }
    const readers = this.readers;
    for (const [name, def] of Object.entries(catalogue.gauges)) {
      new Gauge({
        name: catalogue.prefix + name,
        help: def.help,
        labelNames: [...def.labels],
        registers,
        async collect() {
          this.reset();
          const read = readers.get(name);
          if (!read) return;
          try {
            for (const s of await read()) this.set(normalize(def, s.labels), s.value);
          } catch {
            // A reader that fails (a database down) leaves its gauge empty; the other metrics still go out.
          }
        },
      });
    }
    if (options.processMetrics ?? true) collectDefaultMetrics({ register: this.registry });
  }

  get generation(): number {
    return this.moves;
  }

  increment(counter: string, labels?: MetricLabels, by = 1): void {
    const c = this.counters.get(counter);
    if (!c) return;
    c.counter.inc(normalize(c.def, labels), by);
    this.moves++;
  }

  observe(histogram: string, value: number, labels?: MetricLabels): void {
    const h = this.histograms.get(histogram);
    if (h && Number.isFinite(value)) h.histogram.observe(normalize(h.def, labels), value);
  }

  collect(gauge: string, read: GaugeReader): void {
    this.readers.set(gauge, read);
  }

  async total(counter: string, match: MetricLabels = {}): Promise<number> {
    const c = this.counters.get(counter);
    if (!c) return 0;
    const wanted = Object.entries(match).map(([k, v]) => [k, String(v)] as const);
    const { values } = await c.counter.get();
    return values.filter((v) => wanted.every(([k, want]) => String(v.labels[k] ?? '') === want)).reduce((sum, v) => sum + v.value, 0);
  }

  async exposition(): Promise<{ contentType: string; text: string }> {
    return { contentType: this.registry.contentType, text: await this.registry.metrics() };
  }
}

/** Exactly the declared labels: the missing ones empty, the undeclared ones dropped (prom-client throws on those). */
function normalize(def: MetricDefinition, labels: MetricLabels = {}): Labels {
  const out: Labels = {};
  for (const name of def.labels) out[name] = labels[name] ?? '';
  return out;
}
