/**
 * The token page's price chart: candles of the interval chosen, drawn by the chart module (loaded
 * on first use), with the token's current price beside the last one.
 */
import { read } from '../api.js';
import { fill, h } from '../dom.js';
import { compact } from '../format.js';
import type { PriceChart } from '../chart.js';
import type { Candle } from '../types.js';

const INTERVALS = ['1m', '5m', '1h', '1d'] as const;

export interface PriceSection {
  el: HTMLElement;
  /** Reads the candles again and draws them; the first load picks the interval that shows trades. */
  load(): Promise<void>;
  /** Draws the candles shown at a new current price. */
  reprice(priceUsd: string): void;
  /** Says the chart could not be loaded. */
  unavailable(): void;
  remove(): void;
}

/** `gone` says the page was left; `priceUsd` is the token's price once it is known. */
export function priceSection(tokenId: string, gone: () => boolean, priceUsd: () => string | undefined): PriceSection {
  let chart: PriceChart | null = null;
  let candles: Candle[] | null = null;
  let interval: (typeof INTERVALS)[number] = '1m';
  let chosen = false;
  const chartBox = h('div', { class: 'chart', role: 'img', 'aria-label': 'Price chart', 'data-testid': 'chart' });
  const noTrades = h('p', { class: 'muted small', hidden: true }, 'No trades yet: the chart starts with the first one.');
  const press = () => intervalButtons.forEach((b) => b.setAttribute('aria-pressed', String(b.textContent === interval)));
  const intervalButtons = INTERVALS.map((i) => h('button', { type: 'button', class: 'chip', 'aria-pressed': String(i === interval), onclick: () => ((interval = i), press(), void load()) }, i));
  const readCandles = () => read('candles', { id: tokenId }, { interval });

  const load = async () => {
    let c = await readCandles();
    // A token whose trades are older than 100 one-minute candles opens on the first interval that shows them.
    while (!chosen && c.items.length === 0 && interval !== '1d') {
      interval = INTERVALS[INTERVALS.indexOf(interval) + 1]!;
      c = await readCandles();
    }
    if (!chosen && c.items.length === 0) interval = '1m';
    chosen = true;
    press();
    if (gone()) return;
    chart ??= (await import('../chart.js')).priceChart(chartBox);
    candles = c.items;
    chart.set(c.items, priceUsd());
    noTrades.hidden = c.items.length > 0;
    const last = c.items.at(-1);
    chartBox.setAttribute('aria-label', last ? `Price chart, ${c.items.length} ${interval} candles, last close $${compact(last.close)}` : 'Price chart: no trades yet');
  };

  return {
    el: h('section', { class: 'panel', 'aria-labelledby': 'chart-title' }, h('div', { class: 'row spread' }, h('h2', { id: 'chart-title' }, 'Price'), h('div', { class: 'row', role: 'group', 'aria-label': 'Candle interval' }, intervalButtons)), noTrades, chartBox),
    load,
    reprice: (price) => {
      if (chart && candles) chart.set(candles, price);
    },
    unavailable: () => fill(chartBox, h('p', { class: 'muted' }, 'The chart could not be loaded.')),
    remove: () => chart?.remove(),
  };
}
