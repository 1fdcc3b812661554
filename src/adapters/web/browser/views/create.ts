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
    const picker = imagePicker();
    const form = h('form', { class: 'stack create', novalidate: true }, fields.slice(0, 3), picker.field, fields.slice(3), h('button', { type: 'submit', class: 'primary' }, 'Review'));
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
      if (picker.image()) body.image = picker.image()!;
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

/** 1 MiB: the service's limit, told here before a megabyte is sent for nothing. */
const IMAGE_MAX_BYTES = 1024 * 1024;

/**
 * The image picker: a file read as a data: URL (what POST /tokens takes as `image`) and shown at
 * once. The service checks the bytes; this only spares a round trip for a file plainly too large.
 */
function imagePicker(): { field: HTMLElement; image: () => string | null } {
  let image: string | null = null;
  const preview = h('img', { class: 'avatar large preview', alt: 'Preview of the image', hidden: true });
  const note = h('small', { id: 'create-image-hint', class: 'muted' }, 'optional: PNG, JPEG, WebP or GIF, up to 1 MB; kept as a 512 × 512 WebP');
  const input = h('input', { id: 'create-image', name: 'image', type: 'file', accept: 'image/png,image/jpeg,image/webp,image/gif', 'aria-describedby': 'create-image-hint' });
  input.addEventListener('change', () => {
    image = null;
    preview.hidden = true;
    const file = input.files?.[0];
    if (!file) return;
    if (file.size > IMAGE_MAX_BYTES) {
      note.textContent = `${file.name} is ${(file.size / 1024 / 1024).toFixed(1)} MB; at most 1 MB is taken.`;
      return;
    }
    const reader = new FileReader();
    reader.onload = () => {
      image = String(reader.result);
      preview.src = image;
      preview.hidden = false;
      note.textContent = `${file.name}, ${Math.ceil(file.size / 1024)} KB`;
    };
    reader.readAsDataURL(file);
  });
  const field = h('div', { class: 'field' }, h('label', { for: 'create-image' }, 'Image'), h('div', { class: 'row' }, preview, input), note);
  return { field, image: () => image };
}
