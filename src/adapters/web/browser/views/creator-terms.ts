/**
 * The create form's fee terms (docs/api.md "Fees and earnings"): who earns the creator's half of
 * each fee — the creator alone, wallets splitting it, or each trader (cashback) — and a vesting for
 * the dev buy. Rows of splits are added and removed here; the service checks the rules again.
 */
import { h } from '../dom.js';

const DAY = 86_400;

function splitRow(onRemove: (row: HTMLElement) => void): HTMLElement {
  const row = h(
    'div',
    { class: 'row split-row' },
    h('input', { name: 'splitWallet', placeholder: '0x… wallet', 'aria-label': 'Wallet', pattern: '0x[0-9a-fA-F]{40}', required: true, autocomplete: 'off' }),
    h('input', { name: 'splitPercent', inputmode: 'decimal', placeholder: '%', 'aria-label': 'Percent of the creator share', required: true, size: 6 }),
  );
  row.append(h('button', { type: 'button', class: 'ghost small', onclick: () => onRemove(row) }, 'Remove'));
  return row;
}

/** The fields, and what they add to the create's body; `body` throws a message for a person when they do not add up. */
export function creatorTermsFields(): { field: HTMLElement; body: () => Record<string, unknown> } {
  const mode = h(
    'select',
    { id: 'create-fee-mode', name: 'feeMode' },
    h('option', { value: 'creator' }, 'me (the creator)'),
    h('option', { value: 'splits' }, 'wallets I name (up to 10)'),
    h('option', { value: 'cashback' }, 'each trader (cashback)'),
  );
  const rows = h('div', { class: 'stack splits', hidden: true });
  const add = h('button', { type: 'button', class: 'ghost small', hidden: true }, 'Add a wallet');
  const remove = (row: HTMLElement) => row.remove();
  add.addEventListener('click', () => {
    if (rows.children.length < 10) rows.append(splitRow(remove));
  });
  mode.addEventListener('change', () => {
    const splits = mode.value === 'splits';
    rows.hidden = !splits;
    add.hidden = !splits;
    if (splits && rows.children.length === 0) rows.append(splitRow(remove));
    for (const input of rows.querySelectorAll('input')) input.disabled = !splits;
  });
  const cliff = h('input', { id: 'create-cliff-days', name: 'cliffDays', inputmode: 'decimal', placeholder: '0', 'aria-describedby': 'create-vesting-hint' });
  const duration = h('input', { id: 'create-duration-days', name: 'durationDays', inputmode: 'decimal', placeholder: '0', 'aria-describedby': 'create-vesting-hint' });
  const vest = h('input', { id: 'create-vest', type: 'checkbox', name: 'vest' });
  const field = h(
    'fieldset',
    { class: 'field creator-terms' },
    h('legend', {}, "Who earns the creator's half of each fee"),
    mode,
    rows,
    add,
    h('div', { class: 'row' }, vest, h('label', { for: 'create-vest' }, 'Lock my dev buy and release it over time')),
    h('div', { class: 'row' }, h('label', { for: 'create-cliff-days' }, 'Cliff (days)'), cliff, h('label', { for: 'create-duration-days' }, 'then over (days)'), duration),
    h('small', { id: 'create-vesting-hint', class: 'muted' }, 'Locked tokens stay in custody and cannot be sold; nothing is released before the cliff (up to a year), then they are released linearly (over up to four years).'),
  );
  const body = (): Record<string, unknown> => {
    const out: Record<string, unknown> = {};
    if (mode.value === 'cashback') out.feeMode = 'cashback';
    if (mode.value === 'splits') {
      const splits = [...rows.querySelectorAll('.split-row')].map((r) => ({
        wallet: (r.querySelector('[name=splitWallet]') as HTMLInputElement).value.trim(),
        bps: Math.round(Number((r.querySelector('[name=splitPercent]') as HTMLInputElement).value) * 100),
      }));
      const total = splits.reduce((s, x) => s + x.bps, 0);
      if (total !== 10_000) throw new Error(`The percentages add up to ${total / 100} %, not 100 %.`);
      out.creatorSplits = splits;
    }
    if (vest.checked) {
      const seconds = (input: HTMLInputElement) => Math.round(Number(input.value || '0') * DAY);
      out.vesting = { cliffSeconds: seconds(cliff), durationSeconds: seconds(duration) };
    }
    return out;
  };
  return { field, body };
}
