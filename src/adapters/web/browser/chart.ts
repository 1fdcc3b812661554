/**
 * The price chart: TradingView's lightweight-charts (Apache-2.0, canvas, no dependencies beyond
 * its own), candles from GET /api/tokens/:id/candles with their USD volume beneath, at each
 * trade's price without the fee (decision 0045), and the price now as a dashed line. Numbers are
 * turned into floats here only to be drawn; every figure the page states comes from the strings.
 */
import { CandlestickSeries, ColorType, createChart, HistogramSeries, LineStyle, type AutoscaleInfo, type IPriceLine, type UTCTimestamp } from 'lightweight-charts';
import { priceAxis, tickLabels, type PriceAxis } from './price-axis.js';
import type { Candle } from './types.js';

export const UP = '#22c55e';
export const DOWN = '#ef4444';

/** The candles' price format: the axis's labels, its grid never closer than one unit of their last decimal. */
const customFormat = (axis: PriceAxis) => ({
  type: 'custom' as const,
  formatter: axis.format,
  tickmarksFormatter: (ps: readonly number[]) => tickLabels(ps, axis.decimals),
  minMove: axis.minMove,
  base: axis.base,
});

export interface PriceChart {
  /** The candles, and the price now (the header's: the curve's spot) as a line across them. */
  set(candles: Candle[], priceNow?: string): void;
  remove(): void;
}

export function priceChart(container: HTMLElement): PriceChart {
  let now: number | null = null;
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
  });
  const candles = chart.addSeries(CandlestickSeries, {
    upColor: UP,
    downColor: DOWN,
    borderUpColor: UP,
    borderDownColor: DOWN,
    wickUpColor: UP,
    wickDownColor: DOWN,
    priceFormat: customFormat(priceAxis(0, 0)),
    // The price now is always in view, however far it is from the candles shown.
    autoscaleInfoProvider: (original: () => AutoscaleInfo | null) => {
      const info = original();
      if (!info?.priceRange || now === null) return info;
      return { ...info, priceRange: { minValue: Math.min(info.priceRange.minValue, now), maxValue: Math.max(info.priceRange.maxValue, now) } };
    },
  });
  const volume = chart.addSeries(HistogramSeries, { priceScaleId: 'volume', priceFormat: { type: 'volume' }, color: 'rgba(148,163,184,0.45)', lastValueVisible: false, priceLineVisible: false });
  chart.priceScale('volume').applyOptions({ scaleMargins: { top: 0.8, bottom: 0 } });
  candles.priceScale().applyOptions({ scaleMargins: { top: 0.1, bottom: 0.25 } });
  let nowLine: IPriceLine | null = null;
  return {
    set(items, priceNow) {
      const time = (c: Candle) => Math.floor(Date.parse(c.openTime) / 1000) as UTCTimestamp;
      candles.setData(items.map((c) => ({ time: time(c), open: Number(c.open), high: Number(c.high), low: Number(c.low), close: Number(c.close) })));
      volume.setData(items.map((c) => ({ time: time(c), value: Number(c.volumeUsd), color: Number(c.close) >= Number(c.open) ? 'rgba(34,197,94,0.35)' : 'rgba(239,68,68,0.35)' })));
      const prices = [...items.flatMap((c) => [Number(c.low), Number(c.high)]), ...(priceNow ? [Number(priceNow)] : [])];
      const axis = priceAxis(Math.min(...prices, Infinity), Math.max(...prices, 0));
      candles.applyOptions({ priceFormat: customFormat(axis) });
      chart.applyOptions({ localization: { priceFormatter: axis.format, tickmarksPriceFormatter: (ps: readonly number[]) => tickLabels(ps, axis.decimals) } });
      now = priceNow ? Number(priceNow) : null;
      if (nowLine) candles.removePriceLine(nowLine);
      nowLine = priceNow ? candles.createPriceLine({ price: Number(priceNow), color: '#6366f1', lineWidth: 1, lineStyle: LineStyle.Dashed, axisLabelVisible: true, title: 'now' }) : null;
      // Many candles fit the width; a few keep their natural width at the right edge.
      if (items.length > 60) chart.timeScale().fitContent();
      else chart.timeScale().scrollToRealTime();
    },
    remove: () => chart.remove(),
  };
}
