/** A wallet's positions with cost basis and PnL, and its creator and referral earnings if any. */
import { read } from '../api.js';
import { fill, h } from '../dom.js';
import { networkName, shortAddress, shortId } from '../format.js';
import { connect, currentAddress, onWalletChange } from '../session.js';
import type { Earnings, Positions, Token } from '../types.js';
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
            h('th', { scope: 'row' }, h('a', { href: `#/token/${i.tokenId}` }, i.symbol), ' ', h('span', { class: 'muted small', title: i.tokenId }, shortId(i.tokenId))),
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

/** Earnings by token, each named by its symbol (and short id: two tokens may share a symbol). */
async function earningsSection(e: Earnings): Promise<HTMLElement | null> {
  if (/^0(\.0*)?$/.test(e.accruedUsd)) return null;
  const ids = [...new Set(e.items.map((i) => i.tokenId))];
  const tokens = new Map((await Promise.all(ids.map((id) => read('get_token', { id }).catch(() => null)))).filter((t): t is Token => t !== null).map((t) => [t.tokenId, t]));
  const name = (id: string) => {
    const t = tokens.get(id);
    return t ? [h('strong', {}, t.symbol), ' ', h('span', { class: 'muted small', title: id }, `${t.name} · ${shortId(id)}`)] : shortId(id);
  };
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
        { 'data-testid': 'earnings' },
        h('thead', {}, h('tr', {}, ['Token', 'Role', 'Earned', 'Paid', 'Pending'].map((c) => h('th', { scope: 'col' }, c)))),
        h('tbody', {}, e.items.map((i) => h('tr', {}, h('td', {}, h('a', { href: `#/token/${i.tokenId}` }, name(i.tokenId))), h('td', {}, i.role.replaceAll('_', ' ')), h('td', { class: 'num' }, amount(i.accruedUsd, 'usd')), h('td', { class: 'num' }, amount(i.paidUsd, 'usd')), h('td', { class: 'num' }, amount(i.pendingUsd, 'usd'))))),
      ),
    ),
  );
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
    h('p', { class: 'muted small' }, 'Any wallet’s positions and earnings, read-only, at ', h('code', {}, '#/wallet/<address>'), ' — no wallet to connect.'),
    form,
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
        lookup(),
      );
      return;
    }
    const own = wallet === currentAddress();
    fill(root, h('h1', {}, own ? 'Your wallet' : 'Wallet'), h('p', { class: 'muted' }, 'Loading…'));
    try {
      const [positions, earnings] = await Promise.all([read('list_positions', {}, { wallet }), read('earnings', { address: wallet })]);
      const earned = await earningsSection(earnings);
      fill(
        root,
        h('h1', {}, own ? 'Your wallet' : `Wallet ${shortAddress(wallet)}`),
        h('p', { class: 'address-line' }, h('code', { class: 'address', title: positions.wallet }, positions.wallet), ` · pays on ${networkName(positions.network)}`),
        own ? null : h('p', { class: 'muted small' }, 'A read-only view: ', h('code', {}, '#/wallet/<address>'), ' shows any wallet, no wallet to connect.'),
        h('section', { class: 'panel', 'aria-labelledby': 'positions-title' }, h('div', { class: 'row spread' }, h('h2', { id: 'positions-title' }, 'Positions'), h('button', { type: 'button', class: 'ghost small', onclick: () => void render() }, 'Refresh')), positionsTable(positions)),
        earned,
        lookup(),
      );
    } catch (e) {
      fill(root, h('h1', {}, 'Wallet'), errorBox(e));
    }
  };
  const off = address ? () => undefined : onWalletChange(() => void render());
  void render();
  return off;
}
