/**
 * A token's fee terms on its page (docs/api.md "Fees and earnings"): who earns the creator's half
 * of each fee — the creator, its split wallets, or each trader (cashback) — and a vested dev buy's
 * schedule with how much of it is still locked.
 */
import { h } from '../dom.js';
import { percentText, shortAddress } from '../format.js';
import type { Token } from '../types.js';
import { amount, progressBar } from '../ui.js';

const when = (iso: string) => h('time', { datetime: iso, title: iso }, new Date(iso).toLocaleString());

function earners(token: Token): HTMLElement {
  if (token.feeMode === 'cashback') {
    return h('p', { 'data-testid': 'fee-mode' }, h('span', { class: 'badge' }, 'cashback'), " The creator's half of each trading fee goes back to the trader who paid it.");
  }
  const splits = token.creatorSplits ?? [{ wallet: token.creator, bps: 10_000 }];
  if (splits.length === 1 && splits[0]!.wallet.toLowerCase() === token.creator.toLowerCase()) {
    return h('p', { 'data-testid': 'fee-mode' }, "The creator earns half of every trading fee.");
  }
  return h(
    'div',
    { 'data-testid': 'fee-mode' },
    h('p', {}, "The creator's half of every trading fee is split among:"),
    h(
      'ul',
      { class: 'splits', 'data-testid': 'creator-splits' },
      splits.map((s) => h('li', {}, h('a', { href: `#/wallet/${s.wallet}`, title: s.wallet }, shortAddress(s.wallet)), ' ', percentText((s.bps / 10_000).toFixed(4)))),
    ),
  );
}

function vesting(v: NonNullable<Token['vesting']>): HTMLElement {
  const released = Number(v.tokens) > 0 ? (Number(v.releasedTokens) / Number(v.tokens)).toFixed(6) : '1';
  return h(
    'div',
    { 'data-testid': 'vesting' },
    h('h3', {}, 'Dev buy, vested'),
    progressBar(released, 'Dev buy released', `${percentText(released)} released`),
    h('p', {}, amount(v.lockedTokens, 'tokens'), ' of ', amount(v.tokens, 'tokens'), ' still locked in custody; they cannot be sold until released to the creator.'),
    h(
      'p',
      { class: 'muted small' },
      v.cliffSeconds > 0 ? ['Nothing before ', when(v.cliffEndsAt), ', then '] : 'From creation, ',
      'released linearly until ',
      when(v.endsAt),
      v.nextReleaseAt ? ['; next release from ', when(v.nextReleaseAt)] : '; fully released',
      '.',
    ),
  );
}

export function feeTermsPanel(token: Token): HTMLElement {
  return h(
    'section',
    { class: 'panel', 'aria-labelledby': 'fee-terms-title', 'data-testid': 'fee-terms' },
    h('h2', { id: 'fee-terms-title' }, 'Fees'),
    earners(token),
    token.vesting ? vesting(token.vesting) : null,
  );
}
