/**
 * Launching a token: the form of POST /tokens, its price from the 402, then the new token's page.
 * The form is a list of parts (`FormPart`), each drawing its own fields and writing them into the
 * request body: the token's words, its image, its links, how it launches — on the curve at once
 * (with an optional dev buy) or as a fair launch (a raise first: goal, duration, a cap per wallet;
 * docs/api.md "Fair launches"). A new group of fields is one more part in `formParts`.
 */
import { fill, h } from '../dom.js';
import { toUnits } from '../format.js';
import { currentAddress, onWalletChange } from '../session.js';
import type { Token } from '../types.js';
import { connectButton, errorBox } from '../ui.js';
import { checkout } from './checkout.js';
import { creatorTermsFields } from './creator-terms.js';

/** The request body of POST /tokens as the form builds it. */
type CreateBody = Record<string, unknown>;

/** A group of the form's fields: what it draws, and how it writes them into the body (an error in words when a value cannot be sent). */
interface FormPart {
  el: HTMLElement;
  write(body: CreateBody): string | null;
  /** What it adds to the sentence the checkout shows ("with a $5 dev buy"). */
  says?(body: CreateBody): string;
}

interface FieldSpec {
  name: string;
  label: string;
  hint?: string;
  attrs: Record<string, string | number | boolean>;
  textarea?: boolean;
}

/** One labelled input (or textarea), its hint read by screen readers with it. */
function field(f: FieldSpec, id = `create-${f.name}`): { el: HTMLElement; input: HTMLInputElement | HTMLTextAreaElement } {
  const hintId = `${id}-hint`;
  const attrs = { id, name: f.name, ...(f.hint ? { 'aria-describedby': hintId } : {}), ...f.attrs };
  const input = f.textarea ? h('textarea', { ...attrs, rows: 3 }) : h('input', attrs);
  return { input, el: h('div', { class: 'field' }, h('label', { for: id }, f.label), input, f.hint ? h('small', { id: hintId, class: 'muted' }, f.hint) : null) };
}

/** Plain text fields written as they are typed (trimmed; left out when empty). */
function textFields(specs: FieldSpec[], transform: Record<string, (v: string) => string> = {}): FormPart {
  const fields = specs.map((f) => ({ spec: f, ...field(f) }));
  return {
    el: h('div', { class: 'stack' }, fields.map((f) => f.el)),
    write: (body) => {
      for (const { spec, input } of fields) {
        const v = input.value.trim();
        if (v) body[spec.name] = transform[spec.name]?.(v) ?? v;
      }
      return null;
    },
  };
}

const WORDS: FieldSpec[] = [
  { name: 'name', label: 'Name', attrs: { required: true, maxlength: 32, autocomplete: 'off' } },
  { name: 'symbol', label: 'Symbol', hint: '1–10 letters or digits', attrs: { required: true, maxlength: 10, pattern: '[A-Za-z0-9]{1,10}', autocomplete: 'off', autocapitalize: 'characters' } },
  { name: 'description', label: 'Description', hint: 'optional, up to 500 characters', attrs: { maxlength: 500 }, textarea: true },
];

const LINKS: FieldSpec[] = [
  { name: 'website', label: 'Website', hint: 'optional, https', attrs: { type: 'url', inputmode: 'url', placeholder: 'https://…' } },
  { name: 'twitter', label: 'X handle', hint: 'optional', attrs: { placeholder: '@handle' } },
  { name: 'telegram', label: 'Telegram', hint: 'optional', attrs: { placeholder: '@channel' } },
];

/** The parts of the form, in the order they are shown. */
/** Who earns the creator's half of the fees, and a locked dev buy (creator-terms.ts): a part like the others. */
function creatorTerms(): FormPart {
  const terms = creatorTermsFields();
  return {
    el: terms.field,
    write: (body) => {
      try {
        Object.assign(body, terms.body());
        return null;
      } catch (e) {
        return (e as Error).message;
      }
    },
    says: (body) => (body.vesting ? ', locked' : ''),
  };
}

const formParts = (): FormPart[] => [textFields(WORDS, { symbol: (v) => v.toUpperCase() }), imagePicker(), textFields(LINKS), launchPart(), creatorTerms()];

export function createView(root: HTMLElement): () => void {
  const render = () => {
    const wallet = currentAddress();
    const box = h('div', { class: 'checkout', 'aria-live': 'polite' });
    const parts = formParts();
    const form = h('form', { class: 'stack create', novalidate: true }, parts.map((p) => p.el), h('button', { type: 'submit', class: 'primary' }, 'Review'));
    form.addEventListener('submit', (e) => {
      e.preventDefault();
      const who = currentAddress();
      if (!who || !form.reportValidity()) return;
      const body: CreateBody = {};
      const refused = parts.map((p) => p.write(body)).find((m) => m !== null);
      if (refused) return void fill(box, errorBox(new Error(refused)));
      void checkout<Token>(box, {
        url: '/tokens',
        body,
        wallet: who,
        what: `Create ${String(body.name)} (${String(body.symbol)})${parts.map((p) => p.says?.(body) ?? '').join('')}.`,
        onAnswer: ({ data: token }) => {
          location.hash = `#/token/${token.tokenId}`;
        },
      });
    });
    fill(
      root,
      h('h1', {}, 'Create a token'),
      h('p', {}, 'Your token is a real ERC-20 sold on a bonding curve; you pay $0.01 (plus any dev buy) from your wallet, and earn half of every trading fee of it.'),
      wallet ? null : h('div', {}, connectButton('Connect wallet to create', (b) => root.prepend(b))),
      wallet ? form : null,
      box,
    );
  };
  const off = onWalletChange(render);
  render();
  return off;
}

const UNITS = [
  ['60', 'minutes'],
  ['3600', 'hours'],
  ['86400', 'days'],
] as const;

/**
 * How the token launches: on its curve at once (an optional dev buy in the same payment), or as a
 * fair launch — a raise of `goalUsd` for a duration (10 s to 7 days, typed in minutes, hours or
 * days), with an optional cap per wallet; no dev buy then (the creator pledges like anyone).
 */
function launchPart(): FormPart {
  const mode = (value: string, label: string, hint: string, checked = false) =>
    h('label', { class: 'choice' }, h('input', { type: 'radio', name: 'launch-mode', value, checked }), h('span', {}, h('strong', {}, label), h('small', { class: 'muted' }, hint)));
  const curve = mode('curve', 'On the curve now', 'trades at once; you may buy first in the same payment', true);
  const fair = mode('fair', 'Fair launch', 'a raise first: wallets pledge USDC until its end; if it reaches its goal, every pledger buys at one price');
  const devBuy = field({ name: 'initialBuyUsd', label: 'Dev buy in USD', hint: 'optional: buy your own token in the same payment, at the base fee', attrs: { inputmode: 'decimal', placeholder: '0' } });
  const goal = field({ name: 'goalUsd', label: 'Goal in USD', hint: 'the raise fills when the pledges reach this', attrs: { inputmode: 'decimal', placeholder: '100' } }, 'create-goal');
  const duration = field({ name: 'duration', label: 'Raise for', hint: '10 seconds to 7 days', attrs: { inputmode: 'numeric', value: '1' } }, 'create-duration');
  const unit = h('select', { id: 'create-duration-unit', name: 'durationUnit', 'aria-label': 'Unit of the duration' }, UNITS.map(([v, label]) => h('option', { value: v, selected: v === '3600' }, label)));
  const amountAndUnit = h('div', { class: 'row' });
  duration.input.replaceWith(amountAndUnit);
  amountAndUnit.append(duration.input, unit);
  const cap = field({ name: 'maxPerWalletUsd', label: 'At most per wallet, in USD', hint: 'optional: the most one wallet may pledge', attrs: { inputmode: 'decimal' } }, 'create-cap');
  const fairFields = h('div', { class: 'stack', 'data-testid': 'fair-fields', hidden: true }, goal.el, duration.el, cap.el);
  const isFair = () => (fair.querySelector('input') as HTMLInputElement).checked;
  const shown = () => {
    fairFields.hidden = !isFair();
    devBuy.el.hidden = isFair();
  };
  for (const choice of [curve, fair]) choice.addEventListener('change', shown);
  return {
    el: h('fieldset', { class: 'launch' }, h('legend', {}, 'Launch'), curve, fair, devBuy.el, fairFields),
    write: (body) => {
      if (!isFair()) {
        const buy = devBuy.input.value.trim();
        if (buy) body.initialBuyUsd = buy;
        return null;
      }
      const goalUsd = goal.input.value.trim();
      if (!toUnits(goalUsd, 6)) return 'Enter the raise’s goal in USD, such as 100 or 250.50.';
      const seconds = Number(duration.input.value) * Number(unit.value);
      if (!Number.isInteger(seconds) || seconds < 10 || seconds > 604_800) return 'A raise lasts from 10 seconds to 7 days: enter a whole number of minutes, hours or days.';
      const maxPerWalletUsd = cap.input.value.trim();
      if (maxPerWalletUsd && !toUnits(maxPerWalletUsd, 6)) return 'Enter the cap per wallet in USD, such as 10, or leave it empty.';
      body.launch = { mode: 'fair', goalUsd, durationSeconds: seconds, ...(maxPerWalletUsd ? { maxPerWalletUsd } : {}) };
      return null;
    },
    says: (body) => {
      const launch = body.launch as { goalUsd: string } | undefined;
      if (launch) return ` as a fair launch raising $${launch.goalUsd}`;
      return body.initialBuyUsd ? ` with a $${String(body.initialBuyUsd)} dev buy` : '';
    },
  };
}

/** 1 MiB: the service's limit, told here before a megabyte is sent for nothing. */
const IMAGE_MAX_BYTES = 1024 * 1024;

/**
 * The image picker: a file read as a data: URL (what POST /tokens takes as `image`) and shown at
 * once. The service checks the bytes; this only spares a round trip for a file plainly too large.
 */
function imagePicker(): FormPart {
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
  const el = h('div', { class: 'field' }, h('label', { for: 'create-image' }, 'Image'), h('div', { class: 'row' }, preview, input), note);
  return {
    el,
    write: (body) => {
      if (image) body.image = image;
      return null;
    },
  };
}
