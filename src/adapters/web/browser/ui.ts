/** Pieces several views share: error boxes, the curve's progress, token avatars, states. */
import { explain } from './api.js';
import { connect, injected } from './session.js';
import { h } from './dom.js';
import { compact, grouped, percentText, usdText } from './format.js';
import type { Token } from './types.js';

/** On the embedded devnet (`npm start` with no chain configured): contracts exist only on this machine, and the demo wallets are funded. */
export const ON_DEVNET = document.querySelector('meta[name="launchpad-chain"]')?.getAttribute('content') === 'devnet';

/**
 * What to do without a browser wallet (decision 0076): install one — on the devnet, with a demo
 * key — or pay from a terminal, from code or from an agent. Never a dead end.
 */
export function noWalletHelp(): HTMLElement {
  return h(
    'div',
    { class: 'help', role: 'note', 'data-testid': 'no-wallet' },
    h('strong', {}, 'No browser wallet in this browser.'),
    h(
      'ul',
      {},
      h('li', {}, 'To pay from this page, install one — MetaMask, Rabby or Coinbase Wallet (any EIP-1193 wallet) — and reload.'),
      ON_DEVNET
        ? h('li', {}, 'This service runs on its local devnet: import a demo key ', h('code', {}, 'npm start'), ' printed (', h('code', {}, 'WALLET_KEY=0x…'), ', public and funded only here) and add chain 84532 at the testnet RPC it printed. The wallet only signs: it needs no ETH.')
        : null,
      h('li', {}, 'Or without a browser: ', ON_DEVNET ? [h('code', {}, 'npm run demo'), ' launches and trades two tokens from a terminal; '] : null, 'pay from code through the API (', h('a', { href: '/api/openapi.json' }, 'OpenAPI'), ', ', h('a', { href: '/entrypoints' }, 'entrypoints'), ') or from an AI agent over MCP (', h('a', { href: '/llms.txt' }, 'llms.txt'), ').'),
    ),
  );
}

/** A button that connects the browser wallet (its failure handed to `failed` in words), or, with no wallet in the browser, what to do instead. */
export function connectButton(label: string, failed: (box: HTMLElement) => void): HTMLElement {
  if (!injected()) return noWalletHelp();
  return h('button', { type: 'button', class: 'primary', onclick: () => void connect().catch((e: unknown) => failed(errorBox(e))) }, label);
}

/** An error in words: what it means, the service's own message, its code (and request id); no wallet at all is told what to do instead. */
export function errorBox(e: unknown): HTMLElement {
  const x = explain(e);
  if (x.code === 'NO_WALLET') return noWalletHelp();
  return h(
    'div',
    { class: 'error', role: 'alert', 'data-code': x.code },
    h('strong', {}, x.lead),
    ' ',
    h('span', { class: 'error-message' }, x.message),
    h('small', { class: 'error-code' }, x.requestId ? `${x.code} · request ${x.requestId}` : x.code),
  );
}

/** The curve's progress to graduation, as a bar screen readers read as a percentage. */
export function curveProgress(token: Token): HTMLElement {
  const text = token.state === 'GRADUATED' ? 'graduated' : `${percentText(token.curve.progress)} of the curve sold`;
  return progressBar(token.curve.progress, 'Bonding curve progress', text);
}

/** A progress bar of `fraction` (a decimal string, capped at 1), read by screen readers as `valueText`. */
export function progressBar(fraction: string, label: string, valueText: string): HTMLElement {
  const value = Math.min(100, Number(fraction) * 100);
  return h(
    'div',
    { class: 'progress', role: 'progressbar', 'aria-valuemin': 0, 'aria-valuemax': 100, 'aria-valuenow': value.toFixed(2), 'aria-valuetext': valueText, 'aria-label': label },
    h('span', { class: 'progress-fill', style: `width:${value}%` }),
  );
}

/** A token's picture: its thumbnail on cards, its image on its page; initials when it has none the page may show. */
export function avatar(token: Pick<Token, 'imageUrl' | 'thumbnailUrl' | 'symbol'>, size: 'small' | 'large' = 'small'): HTMLElement {
  const src = size === 'small' ? (token.thumbnailUrl ?? token.imageUrl) : token.imageUrl;
  if (src && shownImage(src)) {
    return h('img', { class: `avatar ${size}`, src, alt: '', loading: 'lazy', referrerpolicy: 'no-referrer' });
  }
  return h('span', { class: `avatar ${size} initials`, 'aria-hidden': 'true' }, token.symbol.slice(0, 3));
}

/** An image the page loads: the service's own copy (its origin) or one named by an https URL. */
function shownImage(url: string): boolean {
  if (url.startsWith('https://')) return true;
  try {
    return new URL(url).origin === location.origin;
  } catch {
    return false;
  }
}

const STATE_WORDS: Record<string, string> = {
  PENDING: 'pending',
  SENT: 'sent, waiting for confirmation',
  CONFIRMED: 'confirmed',
  FAILED: 'failed',
  DEPLOYED: 'deployed',
  CREATED: 'created',
};

export function stateBadge(state: string): HTMLElement {
  return h('span', { class: `badge state-${state.toLowerCase()}`, 'data-state': state }, STATE_WORDS[state] ?? state.toLowerCase());
}

/** An amount shown rounded, whose exact decimal string is one click away (and always in its label). */
export function amount(exact: string, kind: 'usd' | 'cash' | 'tokens' | 'plain', unit = ''): HTMLButtonElement {
  // Cash (a balance) is written out to the cent: "$9,996.98", not "$10K".
  const shown = kind === 'usd' ? usdText(exact) : kind === 'cash' ? `$${grouped(exact)}` : compact(exact);
  const exactText = kind === 'usd' || kind === 'cash' ? `$${exact}` : exact;
  const suffix = unit ? ` ${unit}` : '';
  const button = h(
    'button',
    { type: 'button', class: 'amount', 'data-exact': exact, title: `Exactly ${exactText}${suffix} — click to show`, 'aria-pressed': 'false' },
    shown + suffix,
  );
  button.addEventListener('click', () => {
    const showing = button.getAttribute('aria-pressed') === 'true';
    button.textContent = (showing ? shown : exactText) + suffix;
    button.setAttribute('aria-pressed', String(!showing));
  });
  return button;
}

/** A signed amount (PnL): the sign in text, not only in colour. */
export function pnl(exact: string): HTMLElement {
  const negative = exact.startsWith('-');
  const zero = /^-?0(\.0*)?$/.test(exact);
  const el = amount(exact, 'usd');
  if (!negative && !zero) el.textContent = `+${el.textContent}`;
  el.classList.add(zero ? 'flat' : negative ? 'down' : 'up');
  return el;
}

/**
 * Names each cell of `row` by its column (`data-label`): on a phone the rows of a table marked
 * `stackable` become cards, each value under its column's name (styles.css, decision 0076).
 */
export function labelCells<R extends HTMLTableRowElement>(row: R, labels: readonly string[]): R {
  [...row.cells].forEach((cell, i) => {
    if (labels[i]) cell.dataset.label = labels[i];
  });
  return row;
}
