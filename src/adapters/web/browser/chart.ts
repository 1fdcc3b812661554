/**
 * The price chart: TradingView's lightweight-charts (Apache-2.0, canvas, no dependencies beyond
 * its own), candles from GET /api/tokens/:id/candles with their USD volume beneath. Numbers are
 * turned into floats here only to be drawn; every figure the page states comes from the strings.
 */
import { CandlestickSeries, ColorType, createChart, HistogramSeries, type UTCTimestamp } from 'lightweight-charts';
import type { Candle } from './types.js';

export const UP = '#22c55e';
export const DOWN = '#ef4444';

/** Prices of a few millionths of a dollar, shown with four significant digits. */
function priceText(p: number): string {
  if (p === 0) return '0';
  if (Math.abs(p) >= 1) return p.toFixed(2);
  return p.toPrecision(4);
}

export interface PriceChart {
  set(candles: Candle[]): void;
  remove(): void;
}

export function priceChart(container: HTMLElement): PriceChart {
  const dark = matchMedia('(prefers-color-scheme: dark)').matches;
  const chart = createChart(container, {
    autoSize: true,
    layout: {
      background: { type: ColorType.Solid, color: 'transparent' },
      textColor: dark ? '#cbd5e1' : '#334155',
      fontFamily: 'system-ui, sans-serif',
    },
    grid: { vertLines: { color: dark ? '#1e293b' : '#e2e8f0' }, horzLines: { color: dark ? '#1e293b' : '#e2e8f0' } },
    timeScale: { timeVisible: true, secondsVisible: false, barSpacing: 14, rightOffset: 6 },
    localization: { priceFormatter: priceText },
  });
  const candles = chart.addSeries(CandlestickSeries, {
    upColor: UP,
    downColor: DOWN,
    borderUpColor: UP,
    borderDownColor: DOWN,
    wickUpColor: UP,
    wickDownColor: DOWN,
    priceFormat: { type: 'custom', formatter: priceText, minMove: 1e-12 },
  });
  const volume = chart.addSeries(HistogramSeries, { priceScaleId: 'volume', priceFormat: { type: 'volume' }, color: 'rgba(148,163,184,0.45)', lastValueVisible: false, priceLineVisible: false });
  chart.priceScale('volume').applyOptions({ scaleMargins: { top: 0.8, bottom: 0 } });
  candles.priceScale().applyOptions({ scaleMargins: { top: 0.1, bottom: 0.25 } });
  return {
    set(items) {
      const time = (c: Candle) => Math.floor(Date.parse(c.openTime) / 1000) as UTCTimestamp;
      candles.setData(items.map((c) => ({ time: time(c), open: Number(c.open), high: Number(c.high), low: Number(c.low), close: Number(c.close) })));
      volume.setData(items.map((c) => ({ time: time(c), value: Number(c.volumeUsd), color: Number(c.close) >= Number(c.open) ? 'rgba(34,197,94,0.35)' : 'rgba(239,68,68,0.35)' })));
      // Many candles fit the width; a few keep their natural width at the right edge.
      if (items.length > 60) chart.timeScale().fitContent();
      else chart.timeScale().scrollToRealTime();
    },
    remove: () => chart.remove(),
  };
}
