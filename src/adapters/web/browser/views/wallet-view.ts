/** A wallet's positions with cost basis and PnL, and its creator and referral earnings if any. */
import { get, query } from '../api.js';
import { fill, h } from '../dom.js';
import { networkName, shortAddress } from '../format.js';
import { connect, currentAddress, onWalletChange } from '../session.js';
import type { Earnings, Positions } from '../types.js';
import { amount, errorBox, pnl } from '../ui.js';

function positionsTable(p: Positions): HTMLElement {
  if (!p.items.length) return h('p', { class: 'muted' }, `No positions on ${networkName(p.network)} yet.`);
  const head = ['Token', 'Balance', 'Value', 'Cost basis', 'Avg entry', 'Unrealized PnL', 'Realized PnL'];
  return h(
    'div',
    { class: 'scroll' },
    h(
      'table',
      { 'data-testid': 'positions' },
      h('caption', { class: 'visually-hidden' }, `Positions on ${networkName(p.network)}`),
      h('thead', {}, h('tr', {}, head.map((c) => h('th', { scope: 'col' }, c)))),
      h(
        'tbody',
        {},
        p.items.map((i) =>
          h(
            'tr',
            { 'data-token-id': i.tokenId },
            h('th', { scope: 'row' }, h('a', { href: `#/token/${i.tokenId}` }, i.symbol)),
            h('td', { class: 'num', 'data-testid': 'balance' }, amount(i.balance, 'tokens')),
            h('td', { class: 'num' }, amount(i.valueUsd, 'usd')),
            h('td', { class: 'num' }, amount(i.costBasisUsd, 'usd')),
            h('td', { class: 'num' }, amount(i.avgEntryPriceUsd, 'usd')),
            h('td', { class: 'num' }, pnl(i.unrealizedPnlUsd)),
            h('td', { class: 'num' }, pnl(i.realizedPnlUsd)),
          ),
        ),
      ),
      h(
        'tfoot',
        {},
        h('tr', {}, h('th', { scope: 'row' }, 'Total'), h('td'), h('td', { class: 'num' }, amount(p.totals.valueUsd, 'usd')), h('td', { class: 'num' }, amount(p.totals.costBasisUsd, 'usd')), h('td'), h('td', { class: 'num' }, pnl(p.totals.unrealizedPnlUsd)), h('td', { class: 'num' }, pnl(p.totals.realizedPnlUsd))),
      ),
    ),
  );
}

function earningsSection(e: Earnings): HTMLElement | null {
  if (/^0(\.0*)?$/.test(e.accruedUsd)) return null;
  return h(
    'section',
    { class: 'panel', 'aria-labelledby': 'earnings-title' },
    h('h2', { id: 'earnings-title' }, 'Earnings'),
    h('p', {}, 'Earned ', amount(e.accruedUsd, 'usd'), ' from fee shares: ', amount(e.paidUsd, 'usd'), ' paid on chain, ', amount(e.pendingUsd, 'usd'), ` pending (paid out in USDC from $${e.payoutMinUsd}).`),
    h(
      'div',
      { class: 'scroll' },
      h(
        'table',
        {},
        h('thead', {}, h('tr', {}, ['Token', 'Role', 'Earned', 'Paid', 'Pending'].map((c) => h('th', { scope: 'col' }, c)))),
        h('tbody', {}, e.items.map((i) => h('tr', {}, h('td', {}, h('a', { href: `#/token/${i.tokenId}` }, i.tokenId.slice(0, 10) + '…')), h('td', {}, i.role.replaceAll('_', ' ')), h('td', { class: 'num' }, amount(i.accruedUsd, 'usd')), h('td', { class: 'num' }, amount(i.paidUsd, 'usd')), h('td', { class: 'num' }, amount(i.pendingUsd, 'usd'))))),
      ),
    ),
  );
}

export function walletView(root: HTMLElement, address: string | null): () => void {
  const render = async () => {
    const wallet = address ?? currentAddress();
    if (!wallet) {
      fill(
        root,
        h('h1', {}, 'Wallet'),
        h('p', {}, 'Connect a browser wallet to see your positions, their cost basis and PnL, and what you earned.'),
        h('button', { type: 'button', class: 'primary', onclick: () => void connect().catch((e: unknown) => root.append(errorBox(e))) }, 'Connect wallet'),
      );
      return;
    }
    const own = wallet === currentAddress();
    fill(root, h('h1', {}, own ? 'Your wallet' : 'Wallet'), h('p', { class: 'muted' }, 'Loading…'));
    try {
      const [positions, earnings] = await Promise.all([get<Positions>(`/positions${query({ wallet })}`), get<Earnings>(`/api/wallets/${wallet}/earnings`)]);
      fill(
        root,
        h('h1', {}, own ? 'Your wallet' : `Wallet ${shortAddress(wallet)}`),
        h('p', {}, h('code', { class: 'address' }, positions.wallet), ` · pays on ${networkName(positions.network)}`),
        h('section', { class: 'panel', 'aria-labelledby': 'positions-title' }, h('div', { class: 'row spread' }, h('h2', { id: 'positions-title' }, 'Positions'), h('button', { type: 'button', class: 'ghost small', onclick: () => void render() }, 'Refresh')), positionsTable(positions)),
        earningsSection(earnings),
      );
    } catch (e) {
      fill(root, h('h1', {}, 'Wallet'), errorBox(e));
    }
  };
  const off = address ? () => undefined : onWalletChange(() => void render());
  void render();
  return off;
}
