/** Launching a token: the form of POST /tokens, its price from the 402, then the new token's page. */
import { fill, h } from '../dom.js';
import { connect, currentAddress, onWalletChange } from '../session.js';
import type { Token } from '../types.js';
import { errorBox } from '../ui.js';
import { checkout } from './checkout.js';

const FIELDS: { name: string; label: string; hint?: string; attrs: Record<string, string | number | boolean>; textarea?: boolean }[] = [
  { name: 'name', label: 'Name', attrs: { required: true, maxlength: 32, autocomplete: 'off' } },
  { name: 'symbol', label: 'Symbol', hint: '1–10 letters or digits', attrs: { required: true, maxlength: 10, pattern: '[A-Za-z0-9]{1,10}', autocomplete: 'off', autocapitalize: 'characters' } },
  { name: 'description', label: 'Description', hint: 'optional, up to 500 characters', attrs: { maxlength: 500 }, textarea: true },
  { name: 'imageUrl', label: 'Image URL', hint: 'optional, https', attrs: { type: 'url', inputmode: 'url', placeholder: 'https://…' } },
  { name: 'website', label: 'Website', hint: 'optional, https', attrs: { type: 'url', inputmode: 'url', placeholder: 'https://…' } },
  { name: 'twitter', label: 'X handle', hint: 'optional', attrs: { placeholder: '@handle' } },
  { name: 'telegram', label: 'Telegram', hint: 'optional', attrs: { placeholder: '@channel' } },
  { name: 'initialBuyUsd', label: 'Dev buy in USD', hint: 'optional: buy your own token in the same payment, at the base fee', attrs: { inputmode: 'decimal', placeholder: '0' } },
];

export function createView(root: HTMLElement): () => void {
  const render = () => {
    const wallet = currentAddress();
    const box = h('div', { class: 'checkout', 'aria-live': 'polite' });
    const fields = FIELDS.map((f) => {
      const id = `create-${f.name}`;
      const hintId = `${id}-hint`;
      const attrs = { id, name: f.name, ...(f.hint ? { 'aria-describedby': hintId } : {}), ...f.attrs };
      return h('div', { class: 'field' }, h('label', { for: id }, f.label), f.textarea ? h('textarea', { ...attrs, rows: 3 }) : h('input', attrs), f.hint ? h('small', { id: hintId, class: 'muted' }, f.hint) : null);
    });
    const form = h('form', { class: 'stack create', novalidate: true }, fields, h('button', { type: 'submit', class: 'primary' }, 'Review'));
    form.addEventListener('submit', (e) => {
      e.preventDefault();
      const who = currentAddress();
      if (!who) return;
      if (!form.reportValidity()) return;
      const data = new FormData(form);
      const body: Record<string, string> = {};
      for (const f of FIELDS) {
        const v = String(data.get(f.name) ?? '').trim();
        if (v) body[f.name] = f.name === 'symbol' ? v.toUpperCase() : v;
      }
      void checkout<Token>(box, {
        url: '/tokens',
        body,
        wallet: who,
        what: `Create ${body.name} (${body.symbol})${body.initialBuyUsd ? ` with a $${body.initialBuyUsd} dev buy` : ''}.`,
        onAnswer: ({ data: token }) => {
          location.hash = `#/token/${token.tokenId}`;
        },
      });
    });
    fill(
      root,
      h('h1', {}, 'Create a token'),
      h('p', {}, 'Your token is a real ERC-20 sold on a bonding curve; you pay $0.01 (plus any dev buy) from your wallet, and earn half of every trading fee of it.'),
      wallet ? null : h('p', {}, h('button', { type: 'button', class: 'primary', onclick: () => void connect().catch((err: unknown) => root.prepend(errorBox(err))) }, 'Connect wallet to create')),
      wallet ? form : null,
      box,
    );
  };
  const off = onWalletChange(render);
  render();
  return off;
}
