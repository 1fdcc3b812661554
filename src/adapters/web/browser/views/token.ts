/**
 * A token's page: who made it and what it links to, its price and market figures, the curve's
 * progress to graduation (then its pool), the price chart and its comment thread under it, trades
 * as they happen, the holders, and the trade panel.
 */
import { read } from '../api.js';
import { announce, external, fill, h } from '../dom.js';
import { ago, compact, networkName, percentText, shortAddress } from '../format.js';
import { subscribe } from '../live.js';
import type { Holder, Token, Trade } from '../types.js';
import { amount, avatar, curveProgress, errorBox, labelCells, ON_DEVNET, stateBadge } from '../ui.js';
import { commentsSection } from './comments.js';
import { feeTermsPanel } from './fee-terms.js';
import { priceSection } from './price-section.js';
import { raisePanel } from './raise-panel.js';
import { tradePanel } from './trade-panel.js';

/** A trade at its price without the fee (the chart's), the fee beside it; live, the curve's price after it. */
function tradeRow(t: Trade, spotAfter?: string): HTMLTableRowElement {
  return labelCells(
    h(
      'tr',
      { id: `trade-${t.tradeId}`, 'data-trade-id': t.tradeId, class: `side-${t.side}` },
      h('td', { class: t.side === 'buy' ? 'up' : 'down' }, t.side === 'buy' ? 'Buy' : 'Sell'),
      h('td', { class: 'num', 'data-testid': 'trade-price', ...(spotAfter ? { title: `the curve's price after it: $${spotAfter}` } : {}) }, amount(t.executionPriceUsd ?? t.priceUsd, 'usd')),
      h('td', { class: 'num' }, amount(t.usdAmount, 'usd')),
      h('td', { class: 'num muted' }, amount(t.feeUsd, 'usd')),
      h('td', { class: 'num' }, amount(t.tokenAmount, 'tokens')),
      h('td', { 'data-testid': 'trade-time' }, h('time', { datetime: t.createdAt, title: t.createdAt }, ago(t.createdAt))),
      h('td', { 'data-testid': 'trade-wallet' }, h('a', { href: `#/wallet/${t.wallet}` }, shortAddress(t.wallet))),
    ),
    TRADE_COLUMNS.map(([c]) => c),
  );
}

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
  const item = (label: string, value: Node | string, title?: string) => h('div', title ? { title } : {}, h('dt', {}, label), h('dd', {}, value));
  return h(
    'dl',
    { class: 'figures', 'data-testid': 'figures' },
    item('Price now', amount(token.priceUsd, 'usd'), "the curve's price for the next token, without the fee"),
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

const TRADE_COLUMNS = [
  ['Side', ''],
  ['Price, no fee', "each trade's price without the fee: the chart's"],
  ['USD', 'paid (buy, fee included) or taken from the curve (sell)'],
  ['Fee', 'the trading fee, launch fee included'],
  ['Tokens', ''],
  ['Time', ''],
  ['Wallet', ''],
] as const;

function tradesSection(rows: HTMLElement): HTMLElement {
  const head = h('thead', {}, h('tr', {}, TRADE_COLUMNS.map(([c, title]) => h('th', { scope: 'col', ...(title ? { title } : {}) }, c))));
  return h('section', { class: 'panel', 'aria-labelledby': 'trades-title' }, h('h2', { id: 'trades-title' }, 'Trades ', h('span', { class: 'live-dot', title: 'live' }, 'live')), h('div', { class: 'scroll' }, h('table', { class: 'stackable' }, head, rows)));
}

function tradeRows(items: Trade[]): HTMLElement[] | HTMLElement {
  return items.length ? items.map((x) => tradeRow(x)) : h('tr', { class: 'empty' }, h('td', { colspan: 7 }, 'No trades yet.'));
}

/** A trade from the event stream, on top of the list unless it is there already; says whether it was added. */
function prependLiveTrade(rows: HTMLElement, data: unknown): boolean {
  const { trade: t, spotPriceUsd } = data as { trade?: Trade; spotPriceUsd?: string };
  if (!t || document.getElementById(`trade-${t.tradeId}`)) return false;
  rows.querySelector('tr.empty')?.remove();
  const row = tradeRow(t, spotPriceUsd);
  row.classList.add('fresh');
  rows.prepend(row);
  announce(`${t.side === 'buy' ? 'Buy' : 'Sell'} of $${compact(t.usdAmount)}`);
  return true;
}

const HOLDER_COLUMNS = ['#', 'Wallet', 'Balance', 'Share'];

function holdersSection(rows: HTMLElement): HTMLElement {
  return h('section', { class: 'panel', 'aria-labelledby': 'holders-title' }, h('h2', { id: 'holders-title' }, 'Holders'), h('div', { class: 'scroll' }, h('table', {}, h('thead', {}, h('tr', {}, HOLDER_COLUMNS.map((c) => h('th', { scope: 'col' }, c)))), rows)));
}

function holderRows(items: Holder[]): HTMLElement[] | HTMLElement {
  const locked = (x: Holder) => (x.locked && x.locked !== '0' ? h('small', { class: 'muted', 'data-testid': 'holder-locked' }, ' (', amount(x.locked, 'tokens'), ' locked)') : null);
  const row = (x: Holder, i: number) =>
    labelCells(h('tr', {}, h('td', {}, String(i + 1)), h('td', {}, h('a', { href: `#/wallet/${x.wallet}` }, shortAddress(x.wallet))), h('td', { class: 'num' }, amount(x.balance, 'tokens'), locked(x)), h('td', { class: 'num' }, percentText(x.share))), HOLDER_COLUMNS);
  return items.length ? items.map(row) : h('tr', { class: 'empty' }, h('td', { colspan: 4 }, 'No holders yet.'));
}

/** The trades and holders tables, each read on its own; `gone` says the page was left. */
function marketTables(tokenId: string, gone: () => boolean) {
  const trades = h('tbody', { 'data-testid': 'trades' });
  const holders = h('tbody', { 'data-testid': 'holders' });
  return {
    sections: [tradesSection(trades), holdersSection(holders)],
    loadTrades: async () => {
      const t = await read('list_trades', { id: tokenId }, { limit: 50 });
      if (!gone()) fill(trades, tradeRows(t.items));
    },
    loadHolders: async () => {
      const r = await read('holders', { id: tokenId }, { limit: 20 });
      if (!gone()) fill(holders, holderRows(r.items));
    },
    liveTrade: (data: unknown) => prependLiveTrade(trades, data),
  };
}

/** Events after which the figures, chart and holders are read again. */
const CHANGES = ['token.deployed', 'token.graduated', 'token.pool_created', 'token.pool_failed', 'position.transferred', 'raise.filled', 'raise.failed', 'token.splits_changed', 'vesting.released'];

/** The page's frame: the token's head and figures on top, the market in the main column, the trade panel beside it. */
function layout(head: HTMLElement, fig: HTMLElement, main: HTMLElement[], side: HTMLElement): HTMLElement {
  return h('div', { class: 'token-page' }, h('p', {}, h('a', { href: '#/' }, '← All tokens')), head, fig, h('div', { class: 'columns' }, h('div', { class: 'main-col' }, main), h('aside', { class: 'side-col' }, side)));
}

export function tokenView(root: HTMLElement, tokenId: string): () => void {
  let token: Token | null = null;
  let panel: ReturnType<typeof tradePanel> | null = null;
  let thread: ReturnType<typeof commentsSection> | null = null;
  let raise: ReturnType<typeof raisePanel> | null = null;
  let gone = false;
  const [head, fig, curveSlot, raiseSlot, panelSlot, threadSlot, feesSlot] = [h('div'), h('div'), h('div'), h('div'), h('div'), h('div'), h('div')];
  const price = priceSection(tokenId, () => gone, () => token?.priceUsd);
  const tables = marketTables(tokenId, () => gone);

  const loadToken = async () => {
    token = await read('get_token', { id: tokenId });
    if (gone) return;
    document.title = `${token.name} (${token.symbol}) · x402 launchpad`;
    fill(head, header(token));
    fill(fig, figures(token));
    fill(curveSlot, curve(token));
    fill(feesSlot, feeTermsPanel(token));
    price.reprice(token.priceUsd);
    // A fair launch shows its raise; it trades (the trade panel) once the raise settled.
    if (!raise && token.launchMode === 'fair') {
      raise = raisePanel(token, () => void refresh());
      fill(raiseSlot, raise.el);
    }
    if (!panel && token.tradingSince !== null) {
      panel = tradePanel(token, () => void refresh());
      fill(panelSlot, panel.el);
    }
    if (!thread) {
      thread = commentsSection(token, () => gone);
      fill(threadSlot, thread.el);
      void thread.load().catch(() => undefined);
    }
  };
  // Live changes come in bursts: one refresh of the figures, chart and holders per second at most.
  let pending: ReturnType<typeof setTimeout> | null = null;
  const refresh = () => {
    if (pending || gone) return;
    pending = setTimeout(() => {
      pending = null;
      void Promise.allSettled([loadToken(), price.load(), tables.loadHolders()]);
    }, 300);
  };

  fill(root, layout(head, fig, [price.el, threadSlot, curveSlot, ...tables.sections], h('div', {}, raiseSlot, panelSlot, feesSlot)));
  loadToken().catch((e: unknown) => fill(root, errorBox(e), h('p', {}, h('a', { href: '#/' }, '← All tokens'))));
  void price.load().catch(() => price.unavailable());
  void tables.loadTrades().catch(() => undefined);
  void tables.loadHolders().catch(() => undefined);

  const unsubscribe = subscribe(
    { tokenId },
    {
      'trade.executed': (e) => {
        if (tables.liveTrade(e.data)) refresh();
      },
      ...Object.fromEntries(CHANGES.map((type) => [type, refresh])),
      'comment.posted': (e) => thread?.handlers['comment.posted']?.(e),
      'comment.hidden': (e) => thread?.handlers['comment.hidden']?.(e),
    },
  );
  return () => {
    gone = true;
    unsubscribe();
    if (pending) clearTimeout(pending);
    price.remove();
    panel?.cleanup();
    thread?.cleanup();
    raise?.cleanup();
  };
}
