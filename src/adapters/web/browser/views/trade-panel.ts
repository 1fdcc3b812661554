/**
 * Buy and sell from the token page (the forms are in trade-forms.ts). Results show the delivery of
 * bought tokens and the payout of proceeds until they are confirmed on chain.
 */
import { read } from '../api.js';
import { announce, fill, h } from '../dom.js';
import { currentAddress, onWalletChange } from '../session.js';
import type { Positions, Token } from '../types.js';
import { amount, connectButton, pnl, stateBadge } from '../ui.js';
import { orderSection } from './order-section.js';
import { buyForm, sellForm, type TradeForm } from './trade-forms.js';

const FINAL = new Set(['CONFIRMED', 'FAILED']);

type Side = 'buy' | 'sell';
interface Holding {
  balance: string;
  position: Positions['items'][number] | null;
}

/** Follows a delivery or payout until it is final, showing its state. */
function follow(kind: 'deliveries' | 'payouts', id: string, slot: HTMLElement, done: () => void, signal: AbortSignal): void {
  const tick = async () => {
    if (signal.aborted) return;
    try {
      const item = await (kind === 'deliveries' ? read('get_delivery', { deliveryId: id }) : read('get_payout', { payoutId: id }));
      fill(slot, stateBadge(item.state), item.txHash ? h('code', { class: 'hash', title: item.txHash }, ` ${item.txHash.slice(0, 10)}…`) : null);
      if (FINAL.has(item.state)) {
        announce(`${kind === 'deliveries' ? 'Delivery' : 'Payout'} ${item.state.toLowerCase()}.`);
        done();
        return;
      }
    } catch {
      // Shown again on the next look.
    }
    setTimeout(() => void tick(), 1000);
  };
  void tick();
}

/** What the wallet holds of the token, by its position (the on-chain balance when known); none when unreadable. */
async function readHolding(token: Token, wallet: string): Promise<Holding> {
  try {
    const p = await read('list_positions', {}, { wallet, network: token.network });
    const position = p.items.find((i) => i.tokenId === token.tokenId) ?? null;
    return { balance: position ? (position.onChainBalance ?? position.balance) : '0', position };
  } catch {
    return { balance: '0', position: null };
  }
}

/** The holding line's content: balance, and with a position its value and PnL. */
function holdingFigures(token: Token, holding: Holding): [string, HTMLElement, (string | HTMLElement)[] | null] {
  return ['You hold ', amount(holding.balance, 'tokens', token.symbol), holding.position ? [' · value ', amount(holding.position.valueUsd, 'usd'), ' · PnL ', pnl(holding.position.unrealizedPnlUsd)] : null];
}

/** The Buy and Sell tabs; the arrow keys switch between them. */
function sideTabs(side: Side, choose: (side: Side) => void): HTMLElement {
  const tabs = (['buy', 'sell'] as const).map((s) =>
    h(
      'button',
      { type: 'button', role: 'tab', id: `tab-${s}`, 'aria-selected': String(side === s), 'aria-controls': 'trade-form', tabindex: side === s ? 0 : -1, onclick: () => choose(s) },
      s === 'buy' ? 'Buy' : 'Sell',
    ),
  );
  const tablist = h('div', { role: 'tablist', 'aria-label': 'Buy or sell', class: 'tabs' }, tabs);
  tablist.addEventListener('keydown', (e) => {
    if (e.key !== 'ArrowLeft' && e.key !== 'ArrowRight') return;
    const other = side === 'buy' ? 'sell' : 'buy';
    choose(other);
    document.getElementById(`tab-${other}`)?.focus();
  });
  return tablist;
}

/** The chosen side's form under the holding line, with the checkout and the result below it. */
function tabPanel(side: Side, holdingLine: HTMLElement, form: Omit<TradeForm, 'box' | 'result'>): HTMLElement {
  const box = h('div', { class: 'checkout', 'aria-live': 'polite' });
  const result = h('div', { class: 'result', 'data-testid': 'trade-result' });
  const el = side === 'buy' ? buyForm({ ...form, box, result }) : sellForm({ ...form, box, result });
  return h('div', { id: 'trade-form', role: 'tabpanel', 'aria-labelledby': `tab-${side}` }, holdingLine, el, box, result);
}

export function tradePanel(token: Token, onTraded: () => void): { el: HTMLElement; cleanup: () => void } {
  const el = h('section', { class: 'panel trade', 'aria-labelledby': 'trade-title' });
  const stop = new AbortController();
  let side: Side = 'buy';
  let holding: Holding = { balance: '0', position: null };

  const loadHolding = async () => {
    const wallet = currentAddress();
    if (!wallet) return;
    holding = await readHolding(token, wallet);
    const line = el.querySelector('[data-testid="holding"]');
    // Only the figures change; a form being filled in stays as it is.
    if (line) fill(line, ...holdingFigures(token, holding));
  };
  const traded = (kind: 'deliveries' | 'payouts', id: string, slot: HTMLElement) => {
    onTraded();
    void loadHolding();
    follow(kind, id, slot, () => void loadHolding(), stop.signal);
  };
  const render = () => {
    const wallet = currentAddress();
    const title = h('h2', { id: 'trade-title' }, 'Trade');
    if (token.state === 'GRADUATED' && token.pool?.state !== 'CREATED') {
      fill(el, title, h('p', {}, 'This token graduated; trading resumes through its Uniswap v2 pool once the pool is created.'));
    } else if (!wallet) {
      fill(el, title, h('p', {}, 'Connect a browser wallet to buy and sell. You pay in USDC with an x402 authorization your wallet signs.'), connectButton('Connect wallet', (box) => fill(el, title, box)));
    } else {
      const holdingLine = h('p', { class: 'holding', 'data-testid': 'holding' }, ...holdingFigures(token, holding));
      const tabs = sideTabs(side, (s) => ((side = s), render()));
      fill(el, title, tabs, tabPanel(side, holdingLine, { token, wallet, balance: () => holding.balance, traded }), orderSection(token, wallet));
    }
  };

  const off = onWalletChange(() => {
    holding = { balance: '0', position: null };
    render();
    void loadHolding();
  });
  render();
  void loadHolding();
  return {
    el,
    cleanup: () => {
      stop.abort();
      off();
    },
  };
}
