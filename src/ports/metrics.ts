/**
 * What the service measures, for an operator's scraper (docs/operations.md, "Metrics"). The
 * instruments are declared once in a catalogue (src/app/kit/metrics.ts) that every adapter is built
 * with; callers name them. A call never throws: a label the catalogue does not declare is dropped,
 * one it declares but the call omits is the empty string, so every series of an instrument has the
 * same label names whatever the adapter.
 */

/** The label values of one series: bounded sets (a route template, a status, an outcome), never an id. */
export type MetricLabels = Readonly<Record<string, string | number>>;

export interface MetricDefinition {
  help: string;
  labels: readonly string[];
}

export interface HistogramDefinition extends MetricDefinition {
  /** Upper bounds of the buckets, ascending (seconds for durations). */
  buckets: readonly number[];
}

/** Names are Prometheus names without the service's prefix (`payments_total`, `http_request_duration_seconds`). */
export interface MetricCatalogue {
  prefix: string;
  counters: Readonly<Record<string, MetricDefinition>>;
  histograms: Readonly<Record<string, HistogramDefinition>>;
  gauges: Readonly<Record<string, MetricDefinition>>;
}

export interface GaugeSample {
  labels?: MetricLabels;
  value: number;
}

/** Read when metrics are collected; a reader that fails leaves its gauge without samples for that collection. */
export type GaugeReader = () => GaugeSample[] | Promise<GaugeSample[]>;

export interface Metrics<C extends string = string, H extends string = string, G extends string = string> {
  increment(counter: C, labels?: MetricLabels, by?: number): void;
  observe(histogram: H, value: number, labels?: MetricLabels): void;
  /** The gauge's samples are read from `read` at each collection; a later reader for the same gauge replaces it. */
  collect(gauge: G, read: GaugeReader): void;
  /** The sum of a counter's series whose labels include `match` (every series without one). */
  total(counter: C, match?: MetricLabels): Promise<number>;
  /**
   * A number that grows whenever a counter moves (an `increment` of a declared counter): totals
   * read at one generation still hold while it stands (GET /health keeps its document so).
   */
  readonly generation: number;
  /** Everything, in the Prometheus text exposition format. */
  exposition(): Promise<{ contentType: string; text: string }>;
}
