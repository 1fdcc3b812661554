/**
 * A token's page: who made it and what it links to, its price and market figures, the curve's
 * progress to graduation (then its pool), the price chart, trades as they happen, the holders,
 * and the trade panel.
 */
import { get, query } from '../api.js';
import { announce, external, fill, h } from '../dom.js';
import { ago, compact, networkName, percentText, shortAddress } from '../format.js';
import { subscribe } from '../live.js';
import type { PriceChart } from '../chart.js';
import type { Candle, Holder, Token, Trade } from '../types.js';
import { amount, avatar, curveProgress, errorBox, stateBadge } from '../ui.js';
import { tradePanel } from './trade-panel.js';

const INTERVALS = ['1m', '5m', '1h', '1d'] as const;

/** A trade at its price without the fee (the chart's), the fee beside it; live, the curve's price after it. */
function tradeRow(t: Trade, spotAfter?: string): HTMLTableRowElement {
  return h(
    'tr',
    { id: `trade-${t.tradeId}`, 'data-trade-id': t.tradeId, class: `side-${t.side}` },
    h('td', { class: t.side === 'buy' ? 'up' : 'down' }, t.side === 'buy' ? 'Buy' : 'Sell'),
    h('td', { class: 'num', 'data-testid': 'trade-price', ...(spotAfter ? { title: `the curve's price after it: $${spotAfter}` } : {}) }, amount(t.executionPriceUsd ?? t.priceUsd, 'usd')),
    h('td', { class: 'num' }, amount(t.usdAmount, 'usd')),
    h('td', { class: 'num muted' }, amount(t.feeUsd, 'usd')),
    h('td', { class: 'num' }, amount(t.tokenAmount, 'tokens')),
    h('td', {}, h('time', { datetime: t.createdAt, title: t.createdAt }, ago(t.createdAt))),
    h('td', {}, h('a', { href: `#/wallet/${t.wallet}` }, shortAddress(t.wallet))),
  );
}

/** On the embedded devnet a contract exists only on this machine: no public explorer shows it. */
const ON_DEVNET = document.querySelector('meta[name="launchpad-chain"]')?.getAttribute('content') === 'devnet';

function explorer(network: string, kind: 'address' | 'tx', value: string): string | null {
  if (ON_DEVNET) return null;
  if (network === 'eip155:8453') return `https://basescan.org/${kind}/${value}`;
  if (network === 'eip155:84532') return `https://sepolia.basescan.org/${kind}/${value}`;
  return null;
}

function header(token: Token): HTMLElement {
  const links = [
    token.links.website ? external(token.links.website, 'Website') : null,
    token.links.twitter ? external(token.links.twitter, 'X') : null,
    token.links.telegram ? external(token.links.telegram, 'Telegram') : null,
  ].filter((l): l is HTMLAnchorElement => l !== null);
  const copy = token.address
    ? h('button', { type: 'button', class: 'ghost small', onclick: () => void navigator.clipboard?.writeText(token.address!).then(() => announce('Contract address copied.')) }, 'Copy')
    : null;
  const scan = token.address ? explorer(token.network, 'address', token.address) : null;
  return h(
    'header',
    { class: 'token-head' },
    avatar(token, 'large'),
    h(
      'div',
      {},
      h('h1', {}, token.name, ' ', h('span', { class: 'symbol' }, token.symbol)),
      h('p', { class: 'muted small token-id' }, h('span', { title: 'the token id: two tokens may share a name or a symbol' }, token.tokenId)),
      h('p', { class: 'meta' }, h('span', { class: 'badge' }, networkName(token.network)), ' ', token.state === 'GRADUATED' ? h('span', { class: 'badge grad' }, 'graduated') : null, ' created ', h('time', { datetime: token.createdAt, title: token.createdAt }, ago(token.createdAt)), ' by ', h('a', { href: `#/wallet/${token.creator}` }, shortAddress(token.creator))),
      token.description ? h('p', { class: 'description' }, token.description) : null,
      links.length ? h('p', { class: 'links' }, links.flatMap((l, i) => (i ? [' · ', l] : [l]))) : null,
      h(
        'p',
        { class: 'contract' },
        'Contract ',
        token.address ? h('code', { class: 'address', 'data-testid': 'contract-address', title: token.address }, token.address) : h('span', {}, 'not yet known'),
        ' ',
        copy,
        scan ? [' ', external(scan, 'Explorer')] : null,
        ON_DEVNET && token.address ? h('span', { class: 'muted small', 'data-testid': 'devnet-note' }, ' on the local devnet (no public explorer)') : null,
        ' · deployment ',
        stateBadge(token.deployment.state),
      ),
    ),
  );
}

function figures(token: Token): HTMLElement {
  const item = (label: string, value: Node | string) => h('div', {}, h('dt', {}, label), h('dd', {}, value));
  return h(
    'dl',
    { class: 'figures', 'data-testid': 'figures' },
    item('Price', amount(token.priceUsd, 'usd')),
    item('Market cap', amount(token.marketCapUsd, 'usd')),
    item('24 h volume', amount(token.volumeUsd24h, 'usd')),
    item('24 h trades', String(token.trades24h)),
    item('Holders', String(token.holders)),
    item('Creator earned', amount(token.creatorEarningsUsd, 'usd')),
  );
}

function curve(token: Token): HTMLElement {
  if (token.state === 'GRADUATED') {
    const pool = token.pool;
    return h(
      'section',
      { class: 'panel', 'aria-labelledby': 'curve-title' },
      h('h2', { id: 'curve-title' }, 'Graduated'),
      h('p', {}, `The curve sold out ${token.graduatedAt ? ago(token.graduatedAt) : ''}; the token trades through a Uniswap v2 pool.`),
      pool
        ? h('p', {}, 'Pool ', stateBadge(pool.state), pool.address ? [' ', h('code', {}, pool.address)] : null)
        : h('p', {}, 'The pool is being prepared.'),
    );
  }
  return h(
    'section',
    { class: 'panel', 'aria-labelledby': 'curve-title' },
    h('h2', { id: 'curve-title' }, 'Bonding curve'),
    curveProgress(token),
    h(
      'p',
      { 'data-testid': 'curve-progress' },
      `${percentText(token.curve.progress)} sold to graduation: `,
      amount(token.curve.tokensSold, 'tokens'),
      ' of ',
      amount(token.curve.curveSupply, 'tokens'),
      ` ${token.symbol}; `,
      amount(token.curve.realUsdReserve, 'usd'),
      ' raised. When the curve sells out the token moves to a Uniswap v2 pool.',
    ),
  );
}

export function tokenView(root: HTMLElement, tokenId: string): () => void {
  let token: Token | null = null;
  let chart: PriceChart | null = null;
  let candles: Candle[] | null = null;
  let interval: (typeof INTERVALS)[number] = '1m';
  let panel: ReturnType<typeof tradePanel> | null = null;
  let gone = false;
  const head = h('div');
  const fig = h('div');
  const curveSlot = h('div');
  const chartBox = h('div', { class: 'chart', role: 'img', 'aria-label': 'Price chart', 'data-testid': 'chart' });
  const noTrades = h('p', { class: 'muted small', hidden: true }, 'No trades yet: the chart starts with the first one.');
  const intervalButtons = INTERVALS.map((i) => h('button', { type: 'button', class: 'chip', 'aria-pressed': String(i === interval), onclick: () => ((interval = i), intervalButtons.forEach((b) => b.setAttribute('aria-pressed', String(b.textContent === i))), void loadCandles()) }, i));
  const trades = h('tbody', { 'data-testid': 'trades' });
  const holders = h('tbody', { 'data-testid': 'holders' });
  const panelSlot = h('div');

  const loadToken = async () => {
    token = await get<Token>(`/tokens/${encodeURIComponent(tokenId)}`);
    if (gone) return;
    document.title = `${token.name} (${token.symbol}) · x402 launchpad`;
    fill(head, header(token));
    fill(fig, figures(token));
    fill(curveSlot, curve(token));
    if (chart && candles) chart.set(candles, token.priceUsd);
    if (!panel) {
      panel = tradePanel(token, () => void refresh());
      fill(panelSlot, panel.el);
    }
  };
  let chosen = false;
  const loadCandles = async () => {
    let c = await get<{ items: Candle[] }>(`/api/tokens/${encodeURIComponent(tokenId)}/candles${query({ interval })}`);
    // A token whose trades are older than 100 one-minute candles opens on the first interval that shows them.
    while (!chosen && c.items.length === 0 && interval !== '1d') {
      interval = INTERVALS[INTERVALS.indexOf(interval) + 1]!;
      c = await get<{ items: Candle[] }>(`/api/tokens/${encodeURIComponent(tokenId)}/candles${query({ interval })}`);
    }
    if (!chosen && c.items.length === 0) interval = '1m';
    chosen = true;
    intervalButtons.forEach((b) => b.setAttribute('aria-pressed', String(b.textContent === interval)));
    if (gone) return;
    chart ??= (await import('../chart.js')).priceChart(chartBox);
    candles = c.items;
    chart.set(c.items, token?.priceUsd);
    noTrades.hidden = c.items.length > 0;
    const last = c.items.at(-1);
    chartBox.setAttribute('aria-label', last ? `Price chart, ${c.items.length} ${interval} candles, last close $${compact(last.close)}` : 'Price chart: no trades yet');
  };
  const loadTrades = async () => {
    const t = await get<{ items: Trade[] }>(`/api/tokens/${encodeURIComponent(tokenId)}/trades${query({ limit: 50 })}`);
    if (gone) return;
    fill(trades, t.items.length ? t.items.map((x) => tradeRow(x)) : h('tr', { class: 'empty' }, h('td', { colspan: 7 }, 'No trades yet.')));
  };
  const loadHolders = async () => {
    const r = await get<{ items: Holder[] }>(`/api/tokens/${encodeURIComponent(tokenId)}/holders${query({ limit: 20 })}`);
    if (gone) return;
    fill(holders, r.items.length ? r.items.map((x, i) => h('tr', {}, h('td', {}, String(i + 1)), h('td', {}, h('a', { href: `#/wallet/${x.wallet}` }, shortAddress(x.wallet))), h('td', { class: 'num' }, amount(x.balance, 'tokens')), h('td', { class: 'num' }, percentText(x.share)))) : h('tr', { class: 'empty' }, h('td', { colspan: 4 }, 'No holders yet.')));
  };
  // Live changes come in bursts: one refresh of the figures, chart and holders per second at most.
  let pending: ReturnType<typeof setTimeout> | null = null;
  const refresh = () => {
    if (pending || gone) return;
    pending = setTimeout(() => {
      pending = null;
      void Promise.allSettled([loadToken(), loadCandles(), loadHolders()]);
    }, 300);
  };

  fill(
    root,
    h(
      'div',
      { class: 'token-page' },
      h('p', {}, h('a', { href: '#/' }, '← All tokens')),
      head,
      fig,
      h(
        'div',
        { class: 'columns' },
        h(
          'div',
          { class: 'main-col' },
          h('section', { class: 'panel', 'aria-labelledby': 'chart-title' }, h('div', { class: 'row spread' }, h('h2', { id: 'chart-title' }, 'Price'), h('div', { class: 'row', role: 'group', 'aria-label': 'Candle interval' }, intervalButtons)), noTrades, chartBox),
          curveSlot,
          h('section', { class: 'panel', 'aria-labelledby': 'trades-title' }, h('h2', { id: 'trades-title' }, 'Trades ', h('span', { class: 'live-dot', title: 'live' }, 'live')), h('div', { class: 'scroll' }, h('table', {}, h('thead', {}, h('tr', {}, [['Side', ''], ['Price', 'without the fee: the chart\'s price'], ['USD', 'paid (buy, fee included) or taken from the curve (sell)'], ['Fee', 'the trading fee, launch fee included'], ['Tokens', ''], ['Time', ''], ['Wallet', '']].map(([c, title]) => h('th', { scope: 'col', ...(title ? { title } : {}) }, c)))), trades))),
          h('section', { class: 'panel', 'aria-labelledby': 'holders-title' }, h('h2', { id: 'holders-title' }, 'Holders'), h('div', { class: 'scroll' }, h('table', {}, h('thead', {}, h('tr', {}, ['#', 'Wallet', 'Balance', 'Share'].map((c) => h('th', { scope: 'col' }, c)))), holders))),
        ),
        h('aside', { class: 'side-col' }, panelSlot),
      ),
    ),
  );

  loadToken().catch((e: unknown) => fill(root, errorBox(e), h('p', {}, h('a', { href: '#/' }, '← All tokens'))));
  void loadCandles().catch(() => fill(chartBox, h('p', { class: 'muted' }, 'The chart could not be loaded.')));
  void loadTrades().catch(() => undefined);
  void loadHolders().catch(() => undefined);

  const unsubscribe = subscribe(
    { tokenId },
    {
      'trade.executed': (e) => {
        const { trade: t, spotPriceUsd } = e.data as { trade?: Trade; spotPriceUsd?: string };
        if (!t || document.getElementById(`trade-${t.tradeId}`)) return;
        trades.querySelector('tr.empty')?.remove();
        const row = tradeRow(t, spotPriceUsd);
        row.classList.add('fresh');
        trades.prepend(row);
        announce(`${t.side === 'buy' ? 'Buy' : 'Sell'} of $${compact(t.usdAmount)}`);
        refresh();
      },
      'token.deployed': refresh,
      'token.graduated': refresh,
      'token.pool_created': refresh,
      'token.pool_failed': refresh,
      'position.transferred': refresh,
    },
  );
  return () => {
    gone = true;
    unsubscribe();
    if (pending) clearTimeout(pending);
    chart?.remove();
    panel?.cleanup();
  };
}
