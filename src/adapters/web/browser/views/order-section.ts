/**
 * Orders on the token page (docs/api.md "Orders"): a form that places a limit buy, stop-loss or
 * take-profit — the wallet signs the permission the service holds unused (step 1), then pays the
 * $0.01 placement (step 2) — and the wallet's open orders of this token, each with a Cancel
 * button (the wallet signs "Cancel order <id>"; nothing is paid).
 */
import { read, readEnvelope } from '../api.js';
import { announce, fill, h } from '../dom.js';
import { toUnits } from '../format.js';
import type { Order, Token } from '../types.js';
import { amount, errorBox, stateBadge } from '../ui.js';
import { checkout } from './checkout.js';

const KINDS = [
  ['limit_buy', 'Limit buy (spend USD when the price falls to)'],
  ['stop_loss', 'Stop-loss (sell tokens when the price falls to)'],
  ['take_profit', 'Take-profit (sell tokens when the price rises to)'],
] as const;

export function orderSection(token: Token, wallet: string): HTMLElement {
  const list = h('div', { 'data-testid': 'open-orders' });
  const box = h('div', { class: 'checkout', 'aria-live': 'polite' });
  const kind = h('select', { id: 'order-kind', name: 'kind' }, KINDS.map(([v, label]) => h('option', { value: v }, label)));
  const trigger = h('input', { id: 'order-trigger', name: 'triggerPriceUsd', inputmode: 'decimal', autocomplete: 'off', value: token.priceUsd });
  const size = h('input', { id: 'order-amount', name: 'amount', inputmode: 'decimal', autocomplete: 'off', value: '1' });
  const hours = h('input', { id: 'order-hours', name: 'hours', inputmode: 'numeric', autocomplete: 'off', value: '24' });
  const form = h(
    'form',
    { class: 'stack', novalidate: true },
    h('label', { for: 'order-kind' }, 'Order'),
    kind,
    h('label', { for: 'order-trigger' }, 'Trigger price (USD per token)'),
    trigger,
    h('label', { for: 'order-amount' }, 'USD to spend (limit buy) or tokens to sell'),
    size,
    h('label', { for: 'order-hours' }, 'Expires in (hours, at most 720)'),
    hours,
    h('p', { class: 'muted small' }, 'Nothing leaves your wallet until the order executes: you sign a permission the service keeps unused, then pay $0.01 to place it.'),
    h('button', { type: 'submit', class: 'primary' }, 'Sign and place order'),
  );
  const refresh = () => void showOrders(token, wallet, list);
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    await place(token, wallet, { kind: kind.value, triggerPriceUsd: trigger.value.trim(), amount: size.value.trim(), hours: Number(hours.value) }, box, refresh);
  });
  refresh();
  return h('section', { class: 'panel orders', 'aria-labelledby': 'orders-title' }, h('h2', { id: 'orders-title' }, 'Orders'), form, box, h('h3', {}, 'Your open orders'), list);
}

async function place(token: Token, wallet: string, o: { kind: string; triggerPriceUsd: string; amount: string; hours: number }, box: HTMLElement, placed: () => void): Promise<void> {
  const buy = o.kind === 'limit_buy';
  if (toUnits(o.amount, buy ? 6 : 18) === null || !(o.hours > 0 && o.hours <= 720)) {
    fill(box, errorBox(new Error('Enter an amount (USD for a buy, tokens for a sell) and an expiry between 1 and 720 hours.')));
    return;
  }
  try {
    const expiresAt = new Date(Date.now() + o.hours * 3_600_000).toISOString();
    const sized = buy ? { usdAmount: o.amount } : { tokens: o.amount };
    const auth = await read('order_authorization', {}, { wallet, tokenId: token.tokenId, kind: o.kind, expiresAt, ...sized });
    const { signTypedData } = await import('../wallet.js');
    const m = auth.typedData.message as Record<string, string>;
    const signature = await signTypedData(wallet, {
      ...auth.typedData,
      message: { ...m, value: BigInt(m.value!), validAfter: BigInt(m.validAfter!), validBefore: BigInt(m.validBefore!) },
    });
    await checkout<Order>(box, {
      url: '/entrypoints/order_place',
      body: { tokenId: token.tokenId, kind: o.kind, triggerPriceUsd: o.triggerPriceUsd, expiresAt, ...sized, authorization: { ...auth.authorization, signature } },
      wallet,
      what: `Place a ${o.kind.replace('_', ' ')} at $${o.triggerPriceUsd} per ${token.symbol}.`,
      onAnswer: ({ data }) => {
        announce(`Order ${data.orderId} placed.`);
        placed();
      },
    });
  } catch (err) {
    fill(box, errorBox(err));
  }
}

async function showOrders(token: Token, wallet: string, list: HTMLElement): Promise<void> {
  try {
    const { orders } = await read('list_orders', {}, { wallet, state: 'OPEN' });
    const mine = orders.filter((o) => o.tokenId === token.tokenId);
    if (mine.length === 0) return fill(list, h('p', { class: 'muted' }, 'None.'));
    fill(
      list,
      h(
        'ul',
        {},
        mine.map((o) => {
          const cancel = h('button', { type: 'button', class: 'chip', 'data-testid': 'cancel-order' }, 'Cancel');
          cancel.addEventListener('click', () => void cancelOrder(o, wallet, list, () => void showOrders(token, wallet, list)));
          const size = o.usdAmount ? amount(o.usdAmount, 'usd') : amount(o.tokens ?? '0', 'tokens', token.symbol);
          return h('li', {}, stateBadge(o.state), ` ${o.kind.replace('_', ' ')} at $${o.triggerPriceUsd}: `, size, ` until ${new Date(o.expiresAt).toLocaleString()} `, cancel);
        }),
      ),
    );
  } catch (err) {
    fill(list, errorBox(err));
  }
}

async function cancelOrder(o: Order, wallet: string, list: HTMLElement, done: () => void): Promise<void> {
  try {
    const { walletClient } = await import('../wallet.js');
    const signature = await walletClient(wallet).signMessage({ account: wallet as `0x${string}`, message: `Cancel order ${o.orderId}` });
    const res = await fetch(`/api/orders/${encodeURIComponent(o.orderId)}/cancel`, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json' }, body: JSON.stringify({ signature }) });
    await readEnvelope<Order>(res);
    announce(`Order ${o.orderId} cancelled.`);
    done();
  } catch (err) {
    fill(list, errorBox(err));
  }
}
