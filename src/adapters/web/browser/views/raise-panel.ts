/**
 * A fair launch's raise on its token page (docs/api.md "Fair launches"): how far the pledges are
 * from the goal, when it ends, and a pledge form paying from the browser wallet — step 1 signs
 * the USDC authorization the service holds (nothing moves unless the raise fills), step 2 pays the
 * $0.01 pledge. Once settled: the one price every pledger paid, and this wallet's tokens.
 */
import { read } from '../api.js';
import { announce, fill, h } from '../dom.js';
import { percentText, toUnits } from '../format.js';
import { connect, currentAddress, onWalletChange } from '../session.js';
import type { PledgeResult, Raise, Token } from '../types.js';
import { amount, errorBox, progressBar } from '../ui.js';
import { checkout } from './checkout.js';

const ends = (raise: Raise) => {
  const s = Math.max(0, Math.round((new Date(raise.endsAt).getTime() - Date.now()) / 1000));
  return s === 0 ? 'ended' : s < 120 ? `ends in ${s} s` : `ends ${new Date(raise.endsAt).toLocaleString()}`;
};

function summary(raise: Raise, wallet: string | null): HTMLElement[] {
  const mine = wallet ? raise.byWallet.find((w) => w.wallet.toLowerCase() === wallet.toLowerCase()) : undefined;
  const status =
    raise.state === 'FILLED'
      ? ['Filled: every pledger paid ', amount(raise.priceUsd ?? '0', 'usd'), ' a token.']
      : raise.state === 'FAILED'
        ? [raise.failure === 'goal_not_reached' ? 'The raise missed its goal: no pledge was collected.' : 'Pledges dropped took the raise below its goal: what was collected is being paid back.']
        : [raise.settling ? 'The raise ended; its pledges are being collected…' : `Raising — ${ends(raise)}.`];
  return [
    h('p', { 'data-testid': 'raise-state' }, ...status),
    progressBar(raise.progress, 'Raise progress', `${percentText(raise.progress)} of the goal pledged`),
    h('p', { class: 'muted small' }, amount(raise.pledgedUsd, 'usd'), ' pledged of ', amount(raise.goalUsd, 'usd'), ` by ${raise.pledgers} wallet${raise.pledgers === 1 ? '' : 's'}`, raise.maxPerWalletUsd ? ['; at most ', amount(raise.maxPerWalletUsd, 'usd'), ' a wallet'] : null, '.'),
    mine ? h('p', { 'data-testid': 'raise-mine' }, 'You pledged ', amount(mine.pledgedUsd, 'usd'), raise.state === 'FILLED' ? [' and received ', amount(mine.tokens, 'tokens')] : null, '.') : null,
  ].filter((x): x is HTMLElement => x !== null);
}

/** The USDC authorization the service holds for the pledge, signed by the wallet (EIP-712). */
async function signPledge(token: Token, wallet: string, usdAmount: string): Promise<Record<string, string>> {
  const auth = await read('pledge_authorization', { id: token.tokenId }, { wallet, usdAmount });
  const { signTypedData } = await import('../wallet.js');
  const m = auth.typedData.message as Record<string, string>;
  const signature = await signTypedData(wallet, { ...auth.typedData, message: { ...m, value: BigInt(m.value!), validAfter: BigInt(m.validAfter!), validBefore: BigInt(m.validBefore!) } });
  return { ...auth.authorization, signature };
}

function pledgeForm(token: Token, wallet: string, pledged: () => void): HTMLElement {
  const input = h('input', { id: 'pledge-usd', name: 'usdAmount', inputmode: 'decimal', autocomplete: 'off', required: true, value: '5' });
  const box = h('div', { class: 'checkout', 'aria-live': 'polite' });
  const hint = h('p', { class: 'muted small' }, 'Your USDC stays in your wallet: you sign a permission the service uses only if the raise reaches its goal. The pledge costs $0.01 either way.');
  const form = h('form', { class: 'stack', novalidate: true }, h('label', { for: 'pledge-usd' }, 'Pledge in USD'), input, hint, h('button', { type: 'submit', class: 'primary' }, 'Sign and pledge'), box);
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    const usdAmount = input.value.trim();
    if (!toUnits(usdAmount, 6)) {
      fill(box, errorBox(new Error('Enter a USD amount such as 5 or 12.50 (at most 6 decimals).')));
      return;
    }
    try {
      fill(box, h('p', { class: 'muted', role: 'status' }, 'Step 1 of 2: sign the USDC permission in your wallet…'));
      const authorization = await signPledge(token, wallet, usdAmount);
      await checkout<PledgeResult>(box, {
        url: '/entrypoints/token_pledge',
        body: { tokenId: token.tokenId, usdAmount, authorization },
        wallet,
        what: `Step 2 of 2: pay the $0.01 pledge of $${usdAmount}.`,
        onAnswer: ({ data }) => {
          fill(box, h('p', { class: 'ok' }, 'Pledged ', amount(data.pledge.usdAmount, 'usd'), '.'));
          announce(`Pledged $${data.pledge.usdAmount}.`);
          pledged();
        },
      });
    } catch (err) {
      fill(box, errorBox(err));
    }
  });
  return form;
}

export function raisePanel(token: Token, onSettled: () => void): { el: HTMLElement; cleanup: () => void } {
  const el = h('section', { class: 'panel raise', 'aria-labelledby': 'raise-title', 'data-testid': 'raise' });
  const figures = h('div');
  const formSlot = h('div');
  let timer: ReturnType<typeof setTimeout> | null = null;
  let last: Raise | null = null;
  const load = async () => {
    try {
      const raise = await read('get_raise', { id: token.tokenId });
      fill(figures, ...summary(raise, currentAddress()));
      if (last?.state === 'RAISING' && raise.state !== 'RAISING') onSettled();
      last = raise;
      renderForm();
    } catch (e) {
      fill(figures, errorBox(e));
    }
    // While it raises, the figures follow the pledges; once settled, they stay.
    if (!last || last.state === 'RAISING') timer = setTimeout(() => void load(), 2000);
  };
  // The form is drawn again only when what it shows changes (a wallet, the raise's end): a pledge under way stays as it is.
  let shown = '';
  const renderForm = () => {
    const wallet = currentAddress();
    const open = token.tradingSince === null && !(last && (last.state !== 'RAISING' || last.settling));
    const what = open ? (wallet ?? 'connect') : 'closed';
    if (what === shown) return;
    shown = what;
    if (!open) return fill(formSlot);
    const connectButton = h('button', { type: 'button', class: 'primary', onclick: () => void connect().catch((e: unknown) => fill(formSlot, errorBox(e))) }, 'Connect wallet to pledge');
    fill(formSlot, wallet ? pledgeForm(token, wallet, () => void load()) : connectButton);
  };
  fill(el, h('h2', { id: 'raise-title' }, 'Fair launch'), figures, formSlot);
  const off = onWalletChange(renderForm);
  renderForm();
  void load();
  return {
    el,
    cleanup: () => {
      if (timer) clearTimeout(timer);
      off();
    },
  };
}
