/**
 * A wallet's page (`#/wallet`, `#/wallet/<address>`): what it holds — its USDC and EURC on chain,
 * its positions with cost basis and PnL — what it has promised — its open orders and its pledges
 * in force, each cancelled from here by the wallet itself — and its creator and referral earnings.
 */
import { read } from '../api.js';
import { fill, h } from '../dom.js';
import { grouped, networkName, shortAddress, shortId } from '../format.js';
import { currentAddress, onWalletChange } from '../session.js';
import type { Earnings, Order, Positions, Token, WalletBalance, WalletPledge } from '../types.js';
import { amount, connectButton, errorBox, labelCells, pnl } from '../ui.js';
import { orderList, pledgeList } from './held-items.js';

const POSITION_COLUMNS = ['Token', 'Balance', 'Value', 'Cost basis', 'Avg entry', 'Unrealized PnL', 'Realized PnL'];

function positionsTable(p: Positions): HTMLElement {
  if (!p.items.length) return h('p', { class: 'muted' }, `No positions on ${networkName(p.network)} yet.`);
  return h(
    'div',
    { class: 'scroll' },
    h(
      'table',
      { class: 'stackable', 'data-testid': 'positions' },
      h('caption', { class: 'visually-hidden' }, `Positions on ${networkName(p.network)}`),
      h('thead', {}, h('tr', {}, POSITION_COLUMNS.map((c) => h('th', { scope: 'col' }, c)))),
      h(
        'tbody',
        {},
        p.items.map((i) =>
          labelCells(
            h(
              'tr',
              { 'data-token-id': i.tokenId },
              h('th', { scope: 'row' }, h('a', { href: `#/token/${i.tokenId}` }, i.symbol), ' ', h('span', { class: 'muted small', title: i.tokenId }, shortId(i.tokenId))),
              h('td', { class: 'num', 'data-testid': 'balance' }, amount(i.balance, 'tokens')),
              h('td', { class: 'num' }, amount(i.valueUsd, 'usd')),
              h('td', { class: 'num' }, amount(i.costBasisUsd, 'usd')),
              h('td', { class: 'num' }, amount(i.avgEntryPriceUsd, 'usd')),
              h('td', { class: 'num' }, pnl(i.unrealizedPnlUsd)),
              h('td', { class: 'num' }, pnl(i.realizedPnlUsd)),
            ),
            POSITION_COLUMNS,
          ),
        ),
      ),
      h(
        'tfoot',
        {},
        labelCells(
          h('tr', {}, h('th', { scope: 'row' }, 'Total'), h('td'), h('td', { class: 'num' }, amount(p.totals.valueUsd, 'usd')), h('td', { class: 'num' }, amount(p.totals.costBasisUsd, 'usd')), h('td'), h('td', { class: 'num' }, pnl(p.totals.unrealizedPnlUsd)), h('td', { class: 'num' }, pnl(p.totals.realizedPnlUsd))),
          POSITION_COLUMNS,
        ),
      ),
    ),
  );
}

/** The wallet at a glance: its cash on chain and what its positions are worth. */
function holdings(b: WalletBalance, p: Positions): HTMLElement {
  const item = (label: string, value: Node, testId?: string) => h('div', {}, h('dt', {}, label), h('dd', testId ? { 'data-testid': testId } : {}, value));
  return h(
    'dl',
    { class: 'figures', 'data-testid': 'holdings' },
    item('USDC', amount(b.usdc, 'cash'), 'usdc'),
    b.eurc !== '0' ? item('EURC', h('span', {}, grouped(b.eurc), ' EURC')) : null,
    item('Positions value', amount(p.totals.valueUsd, 'usd')),
    item('Unrealized PnL', pnl(p.totals.unrealizedPnlUsd)),
  );
}

const EARNING_COLUMNS = ['Token', 'Role', 'Earned', 'Paid', 'Pending'];

/** Earnings by token, each named by its symbol (and short id: two tokens may share a symbol). */
function earningsSection(e: Earnings, name: (id: string) => Node | string): HTMLElement | null {
  if (/^0(\.0*)?$/.test(e.accruedUsd)) return null;
  const row = (i: Earnings['items'][number]) =>
    labelCells(
      h('tr', {}, h('th', { scope: 'row' }, h('a', { href: `#/token/${i.tokenId}` }, name(i.tokenId))), h('td', {}, i.role.replaceAll('_', ' ')), h('td', { class: 'num' }, amount(i.accruedUsd, 'usd')), h('td', { class: 'num' }, amount(i.paidUsd, 'usd')), h('td', { class: 'num' }, amount(i.pendingUsd, 'usd'))),
      EARNING_COLUMNS,
    );
  return h(
    'section',
    { class: 'panel', 'aria-labelledby': 'earnings-title' },
    h('h2', { id: 'earnings-title' }, 'Earnings'),
    h('p', {}, 'Earned ', amount(e.accruedUsd, 'usd'), ' from fee shares: ', amount(e.paidUsd, 'usd'), ' paid on chain, ', amount(e.pendingUsd, 'usd'), ` pending (paid out in USDC from $${e.payoutMinUsd}).`),
    h('div', { class: 'scroll' }, h('table', { class: 'stackable', 'data-testid': 'earnings' }, h('thead', {}, h('tr', {}, EARNING_COLUMNS.map((c) => h('th', { scope: 'col' }, c)))), h('tbody', {}, e.items.map(row)))),
  );
}

/** The tokens named on the page that its positions do not name, read once each: symbol, name, short id. */
async function tokenNames(ids: Iterable<string>, p: Positions): Promise<{ name: (id: string) => Node | string; symbol: (id: string) => string }> {
  const known = new Map<string, Pick<Token, 'tokenId' | 'symbol' | 'name'>>(p.items.map((i) => [i.tokenId, { tokenId: i.tokenId, symbol: i.symbol, name: '' }]));
  const missing = [...new Set(ids)].filter((id) => !known.has(id));
  for (const t of await Promise.all(missing.map((id) => read('get_token', { id }).catch(() => null)))) if (t) known.set(t.tokenId, t);
  return {
    symbol: (id) => known.get(id)?.symbol ?? shortId(id),
    name: (id) => {
      const t = known.get(id);
      return t ? h('span', {}, h('strong', {}, t.symbol), ' ', h('span', { class: 'muted small', title: id }, `${t.name ? `${t.name} · ` : ''}${shortId(id)}`)) : shortId(id);
    },
  };
}

/** Open orders and pledges in force: Cancel on each when the connected wallet is this one. */
function heldSections(orders: Order[], pledges: WalletPledge[], names: Awaited<ReturnType<typeof tokenNames>>, canceller: string | null, changed: () => void): HTMLElement[] {
  const link = (id: string) => h('a', { href: `#/token/${id}` }, names.name(id));
  const note = canceller ? 'Cancelling is free: your wallet signs, nothing is paid.' : 'Only the wallet itself cancels them (connect it and open its own page).';
  return [
    h('section', { class: 'panel', 'aria-labelledby': 'orders-title', 'data-testid': 'wallet-orders' }, h('h2', { id: 'orders-title' }, 'Open orders'), orderList(orders, { label: link, symbol: names.symbol, canceller, changed }), orders.length ? h('p', { class: 'muted small' }, note) : null),
    h(
      'section',
      { class: 'panel', 'aria-labelledby': 'pledges-title', 'data-testid': 'wallet-pledges' },
      h('h2', { id: 'pledges-title' }, 'Pledges'),
      pledgeList(pledges, { label: link, canceller, open: (p) => !!p.endsAt && Date.parse(p.endsAt) > Date.now(), changed }),
      h('p', { class: 'muted small' }, 'Pledges in force: USDC the wallet keeps until a raise fills. Once a raise fills, its tokens are among the positions.'),
    ),
  ];
}

/** Any wallet's positions, read-only, at `#/wallet/<address>`: a form to go there. */
function lookup(): HTMLElement {
  const input = h('input', { id: 'wallet-lookup', type: 'text', placeholder: '0x…', autocomplete: 'off', spellcheck: 'false', maxlength: 42, pattern: '0x[0-9a-fA-F]{40}' });
  const form = h(
    'form',
    { class: 'row lookup', role: 'search' },
    h('label', { for: 'wallet-lookup', class: 'visually-hidden' }, 'Wallet address'),
    input,
    h('button', { type: 'submit' }, 'Look up'),
  );
  form.addEventListener('submit', (ev) => {
    ev.preventDefault();
    const value = input.value.trim();
    if (/^0x[0-9a-fA-F]{40}$/.test(value)) location.hash = `#/wallet/${value}`;
    else {
      input.setCustomValidity('A wallet address: 0x and 40 hex digits.');
      input.reportValidity();
    }
  });
  input.addEventListener('input', () => input.setCustomValidity(''));
  return h(
    'section',
    { class: 'panel', 'aria-labelledby': 'lookup-title' },
    h('h2', { id: 'lookup-title' }, 'Look up a wallet'),
    h('p', { class: 'muted small' }, 'Any wallet’s balance, positions, orders, pledges and earnings, read-only, at ', h('code', {}, '#/wallet/<address>'), ' — no wallet to connect.'),
    form,
  );
}

/** Everything the page shows of a wallet, read at once. */
async function readWallet(wallet: string) {
  const positions = await read('list_positions', {}, { wallet });
  const [balance, earnings, orders, pledges] = await Promise.all([
    read('wallet_balance', { address: wallet }, { network: positions.network }),
    read('earnings', { address: wallet }),
    read('list_orders', {}, { wallet, state: 'OPEN' }),
    read('list_pledges', {}, { wallet }),
  ]);
  const names = await tokenNames([...earnings.items.map((i) => i.tokenId), ...orders.orders.map((o) => o.tokenId), ...pledges.pledges.map((p) => p.tokenId)], positions);
  return { positions, balance, earnings, orders: orders.orders, pledges: pledges.pledges, names };
}

function noWallet(root: HTMLElement): void {
  fill(
    root,
    h('h1', {}, 'Wallet'),
    h('p', {}, 'Connect a browser wallet to see your USDC, positions with their cost basis and PnL, open orders, pledges and earnings.'),
    connectButton('Connect wallet', (box) => root.append(box)),
    lookup(),
  );
}

export function walletView(root: HTMLElement, address: string | null): () => void {
  const render = async () => {
    const wallet = address ?? currentAddress();
    if (!wallet) return noWallet(root);
    const connected = currentAddress();
    const own = connected !== null && wallet.toLowerCase() === connected.toLowerCase();
    fill(root, h('h1', {}, own ? 'Your wallet' : 'Wallet'), h('p', { class: 'muted' }, 'Loading…'));
    try {
      const w = await readWallet(wallet);
      fill(
        root,
        h('h1', {}, own ? 'Your wallet' : `Wallet ${shortAddress(wallet)}`),
        h('p', { class: 'address-line' }, h('code', { class: 'address', title: w.positions.wallet }, w.positions.wallet), ` · pays on ${networkName(w.positions.network)}`),
        own ? null : h('p', { class: 'muted small' }, 'A read-only view: ', h('code', {}, '#/wallet/<address>'), ' shows any wallet, no wallet to connect.'),
        holdings(w.balance, w.positions),
        h('section', { class: 'panel', 'aria-labelledby': 'positions-title' }, h('div', { class: 'row spread' }, h('h2', { id: 'positions-title' }, 'Positions'), h('button', { type: 'button', class: 'ghost small', onclick: () => void render() }, 'Refresh')), positionsTable(w.positions)),
        heldSections(w.orders, w.pledges, w.names, own ? connected : null, () => void render()),
        earningsSection(w.earnings, w.names.name),
        lookup(),
      );
    } catch (e) {
      fill(root, h('h1', {}, 'Wallet'), errorBox(e));
    }
  };
  // Its own page follows the connected wallet; any wallet's page knows it is the connected one's.
  const off = onWalletChange(() => void render());
  void render();
  return off;
}
