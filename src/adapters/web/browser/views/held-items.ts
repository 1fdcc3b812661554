/**
 * What a wallet has promised and the service holds unused (docs/api.md "Orders", "Fair
 * launches"): its open orders and its pledges in force, as a list, each with a Cancel button when
 * the connected wallet is theirs — the wallet signs "Cancel order <id>" or "Cancel pledge <id>"
 * (EIP-191) and nothing is paid. Shown on the token page and on the wallet's page.
 */
import { readEnvelope, readUrl } from '../api.js';
import { announce, fill, h } from '../dom.js';
import type { Order, PledgeResult, WalletPledge } from '../types.js';
import { amount, errorBox, stateBadge } from '../ui.js';

type Label = (tokenId: string) => Node | string;

/** The pledge as a list shows it: a raise's own pledge has no tokenId (it is the page's token). */
type ListedPledge = Pick<WalletPledge, 'pledgeId' | 'usdAmount' | 'state' | 'createdAt'> & Partial<Pick<WalletPledge, 'tokenId' | 'endsAt'>>;

/** The free cancel: the wallet signs the text naming the order or pledge, and the service checks it is theirs. */
async function cancelSigned(kind: 'order' | 'pledge', id: string, wallet: string): Promise<void> {
  const { walletClient } = await import('../wallet.js');
  const message = `Cancel ${kind} ${id}`;
  const signature = await walletClient(wallet).signMessage({ account: wallet as `0x${string}`, message });
  const url = kind === 'order' ? readUrl('cancel_order', { orderId: id }) : readUrl('cancel_pledge', { pledgeId: id });
  let res: Response;
  try {
    res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json' }, body: JSON.stringify({ signature }) });
  } catch {
    throw new Error('The service could not be reached. Check your connection and try again.');
  }
  await readEnvelope<Order | PledgeResult>(res);
  announce(`${kind === 'order' ? 'Order' : 'Pledge'} ${id} cancelled.`);
}

/** A Cancel button: while it works it is disabled; a refusal shows in `slot`, a success calls `done`. */
function cancelButton(kind: 'order' | 'pledge', id: string, wallet: string, slot: HTMLElement, done: () => void): HTMLButtonElement {
  const button = h('button', { type: 'button', class: 'chip', 'data-testid': `cancel-${kind}`, 'aria-label': `Cancel ${kind} ${id}` }, 'Cancel');
  button.addEventListener('click', async () => {
    button.disabled = true;
    try {
      await cancelSigned(kind, id, wallet);
      done();
    } catch (e) {
      button.disabled = false;
      fill(slot, errorBox(e));
    }
  });
  return button;
}

const KIND_WORDS: Record<string, string> = { limit_buy: 'Limit buy', stop_loss: 'Stop-loss', take_profit: 'Take-profit' };
const when = (iso: string) => new Date(iso).toLocaleString(undefined, { dateStyle: 'short', timeStyle: 'short' });

/**
 * Orders as a list: kind and token, trigger, size, expiry. `canceller` is the connected wallet when
 * it is the orders' own (a Cancel button each), else null. `changed` runs after a cancel.
 */
export function orderList(orders: readonly Order[], opts: { label: Label; symbol: (tokenId: string) => string; canceller: string | null; changed: () => void }): HTMLElement {
  if (!orders.length) return h('p', { class: 'muted' }, 'None.');
  const slot = h('div');
  const items = orders.map((o) =>
    h(
      'li',
      { 'data-order-id': o.orderId },
      h('span', { class: 'held-what' }, stateBadge(o.state), ' ', h('strong', {}, KIND_WORDS[o.kind] ?? o.kind), ' ', opts.label(o.tokenId)),
      h(
        'span',
        { class: 'held-figures' },
        'at ',
        amount(o.triggerPriceUsd, 'usd'),
        ' · ',
        o.usdAmount ? amount(o.usdAmount, 'usd') : amount(o.tokens ?? '0', 'tokens', opts.symbol(o.tokenId)),
        ' · until ',
        h('time', { datetime: o.expiresAt }, when(o.expiresAt)),
      ),
      opts.canceller ? cancelButton('order', o.orderId, opts.canceller, slot, opts.changed) : null,
    ),
  );
  return h('div', {}, h('ul', { class: 'held', 'data-testid': 'order-list' }, items), slot);
}

/** Pledges as a list: amount, token (on the wallet's page), when the raise ends; a Cancel button each while it may be cancelled. */
export function pledgeList(pledges: readonly ListedPledge[], opts: { label?: Label; canceller: string | null; open: (p: ListedPledge) => boolean; changed: () => void }): HTMLElement {
  if (!pledges.length) return h('p', { class: 'muted' }, 'None.');
  const slot = h('div');
  const items = pledges.map((p) =>
    h(
      'li',
      { 'data-pledge-id': p.pledgeId },
      h('span', { class: 'held-what' }, stateBadge(p.state), ' ', amount(p.usdAmount, 'usd'), p.tokenId && opts.label ? [' to ', opts.label(p.tokenId)] : null),
      h('span', { class: 'held-figures' }, p.endsAt ? ['raise ends ', h('time', { datetime: p.endsAt }, when(p.endsAt))] : ['pledged ', h('time', { datetime: p.createdAt }, when(p.createdAt))]),
      opts.canceller && p.state === 'PLEDGED' && opts.open(p) ? cancelButton('pledge', p.pledgeId, opts.canceller, slot, opts.changed) : null,
    ),
  );
  return h('div', {}, h('ul', { class: 'held', 'data-testid': 'pledge-list' }, items), slot);
}
