/**
 * Orders on the token page (docs/api.md "Orders"): a form that places a limit buy, stop-loss or
 * take-profit — the wallet signs the permission the service holds unused (step 1), then pays the
 * $0.01 placement (step 2) — and the wallet's open orders of this token, each with a Cancel
 * button (held-items.ts: the wallet signs "Cancel order <id>"; nothing is paid). The trigger
 * starts 10% below the price now for a limit buy or a stop-loss, 10% above it for a take-profit,
 * at the precision the chart shows that price with (decision 0076).
 */
import { read } from '../api.js';
import { announce, fill, h } from '../dom.js';
import { toUnits, triggerFrom } from '../format.js';
import { priceDecimals } from '../price-axis.js';
import type { Order, Token } from '../types.js';
import { amount, errorBox } from '../ui.js';
import { checkout } from './checkout.js';
import { orderList } from './held-items.js';

/** Each kind: its label, where its trigger starts from the price now (percent), and what its amount is. */
const KINDS = [
  ['limit_buy', 'Limit buy — buy on a fall', -10, 'USD to spend'],
  ['stop_loss', 'Stop-loss — sell on a fall', -10, 'Tokens to sell'],
  ['take_profit', 'Take-profit — sell on a rise', 10, 'Tokens to sell'],
] as const;

export function orderSection(token: Token, wallet: string): HTMLElement {
  const list = h('div', { 'data-testid': 'open-orders' });
  const box = h('div', { class: 'checkout', 'aria-live': 'polite' });
  const kind = h('select', { id: 'order-kind', name: 'kind' }, KINDS.map(([v, label]) => h('option', { value: v }, label)));
  const trigger = h('input', { id: 'order-trigger', name: 'triggerPriceUsd', inputmode: 'decimal', autocomplete: 'off', 'aria-describedby': 'order-trigger-hint' });
  const sizeLabel = h('label', { for: 'order-amount' }, '');
  const size = h('input', { id: 'order-amount', name: 'amount', inputmode: 'decimal', autocomplete: 'off', value: '1' });
  const hours = h('input', { id: 'order-hours', name: 'hours', inputmode: 'numeric', autocomplete: 'off', value: '24' });
  // The trigger follows the kind until the person types one of their own.
  let typed = false;
  trigger.addEventListener('input', () => (typed = true));
  const chosen = () => {
    const [, , percent, what] = KINDS.find(([v]) => v === kind.value) ?? KINDS[0];
    if (!typed) trigger.value = triggerFrom(token.priceUsd, percent, priceDecimals(Number(token.priceUsd)));
    sizeLabel.textContent = kind.value === 'limit_buy' ? what : `${what} (${token.symbol})`;
  };
  kind.addEventListener('change', chosen);
  chosen();
  const form = h(
    'form',
    { class: 'stack', novalidate: true },
    h('label', { for: 'order-kind' }, 'Order'),
    kind,
    h('label', { for: 'order-trigger' }, 'Trigger price (USD per token)'),
    trigger,
    h('small', { id: 'order-trigger-hint', class: 'muted' }, 'The price now: ', amount(token.priceUsd, 'usd'), ' (the curve’s, without the fee)'),
    sizeLabel,
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
  return h('section', { class: 'orders', 'aria-labelledby': 'orders-title', 'data-testid': 'orders' }, h('h2', { id: 'orders-title' }, 'Orders'), form, box, h('h3', {}, 'Your open orders'), list);
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
    fill(list, orderList(mine, { label: () => '', symbol: () => token.symbol, canceller: wallet, changed: () => void showOrders(token, wallet, list) }));
  } catch (err) {
    fill(list, errorBox(err));
  }
}
