/**
 * A fair launch's raise on its token page (docs/api.md "Fair launches"): how far the pledges are
 * from the goal, when it ends, and a pledge form paying from the browser wallet — step 1 signs
 * the USDC authorization the service holds (nothing moves unless the raise fills), step 2 pays the
 * $0.01 pledge; this wallet's pledges, each cancelled for free until the end. Once settled: the one
 * price every pledger paid (named as such: the fee is in it), and this wallet's tokens.
 */
import { read } from '../api.js';
import { announce, fill, h } from '../dom.js';
import { percentText, timeLeft, toUnits } from '../format.js';
import { currentAddress, onWalletChange } from '../session.js';
import type { PledgeResult, Raise, Token } from '../types.js';
import { amount, connectButton, errorBox, progressBar } from '../ui.js';
import { checkout } from './checkout.js';
import { pledgeList } from './held-items.js';

const ends = (raise: Raise) => {
  const s = Math.max(0, Math.round((new Date(raise.endsAt).getTime() - Date.now()) / 1000));
  return s === 0 ? 'ended' : s < 120 ? `ends in ${s} s` : `${timeLeft(raise.endsAt)}, ends ${new Date(raise.endsAt).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' })}`;
};

/** The price a filled raise's pledgers paid, named as such: the fee is in it, unlike the trades' and the curve's (decision 0076). */
function pledgersPrice(raise: Raise): HTMLElement {
  return h(
    'p',
    { 'data-testid': 'raise-price' },
    'Pledgers’ price: ',
    h('strong', {}, amount(raise.priceUsd ?? '0', 'usd')),
    ' a token, the fee included — ',
    amount(raise.collectedUsd, 'usd'),
    ' for ',
    amount(raise.tokensBought, 'tokens'),
    ' tokens. The trades below show each share at its price without the fee; “Price now” above is the curve’s after the buy.',
  );
}

function summary(raise: Raise, wallet: string | null): HTMLElement[] {
  const mine = wallet ? raise.byWallet.find((w) => w.wallet.toLowerCase() === wallet.toLowerCase()) : undefined;
  const status =
    raise.state === 'FILLED'
      ? ['Filled: every pledger paid one price.']
      : raise.state === 'FAILED'
        ? [raise.failure === 'goal_not_reached' ? 'The raise missed its goal: no pledge was collected.' : 'Pledges dropped took the raise below its goal: what was collected is being paid back.']
        : [raise.settling ? 'The raise ended; its pledges are being collected…' : `Raising — ${ends(raise)}.`];
  return [
    h('p', { 'data-testid': 'raise-state' }, ...status),
    raise.state === 'FILLED' ? pledgersPrice(raise) : null,
    progressBar(raise.progress, 'Raise progress', `${percentText(raise.progress)} of the goal pledged`),
    h('p', { class: 'muted small' }, amount(raise.pledgedUsd, 'usd'), ' pledged of ', amount(raise.goalUsd, 'usd'), ` by ${raise.pledgers} wallet${raise.pledgers === 1 ? '' : 's'}`, raise.maxPerWalletUsd ? ['; at most ', amount(raise.maxPerWalletUsd, 'usd'), ' a wallet'] : null, '.'),
    mine ? h('p', { 'data-testid': 'raise-mine' }, 'You pledged ', amount(mine.pledgedUsd, 'usd'), raise.state === 'FILLED' ? [' and received ', amount(mine.tokens, 'tokens')] : null, '.') : null,
  ].filter((x): x is HTMLElement => x !== null);
}

/** This wallet's pledges while the raise takes pledges, each with Cancel; drawn again only when they change. */
function ownPledges(slot: HTMLElement, changed: () => void): (raise: Raise | null) => void {
  let shown = '';
  return (raise) => {
    const wallet = currentAddress();
    const open = raise !== null && raise.state === 'RAISING' && !raise.settling && Date.parse(raise.endsAt) > Date.now();
    const mine = wallet && raise ? raise.pledges.filter((p) => p.wallet.toLowerCase() === wallet.toLowerCase() && p.state === 'PLEDGED') : [];
    const key = `${wallet}|${open}|${mine.map((p) => p.pledgeId).join()}`;
    if (key === shown) return;
    shown = key;
    if (!wallet || !open || !mine.length) return fill(slot);
    fill(slot, h('h3', {}, 'Your pledges'), pledgeList(mine, { canceller: wallet, open: () => true, changed }), h('p', { class: 'muted small' }, 'Cancelling is free until the raise ends: your wallet signs, nothing is paid.'));
  };
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
  const pledgesSlot = h('div', { 'data-testid': 'raise-pledges' });
  let timer: ReturnType<typeof setTimeout> | null = null;
  let last: Raise | null = null;
  const load = async () => {
    // One chain of looks: a load asked for (after a pledge or a cancel) replaces the one waiting.
    if (timer) clearTimeout(timer);
    try {
      const raise = await read('get_raise', { id: token.tokenId });
      fill(figures, ...summary(raise, currentAddress()));
      if (last?.state === 'RAISING' && raise.state !== 'RAISING') onSettled();
      last = raise;
      renderForm();
      showPledges(raise);
    } catch (e) {
      fill(figures, errorBox(e));
    }
    // While it raises, the figures follow the pledges; once settled, they stay.
    if (timer) clearTimeout(timer);
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
    fill(formSlot, wallet ? pledgeForm(token, wallet, () => void load()) : connectButton('Connect wallet to pledge', (box) => fill(formSlot, box)));
  };
  const showPledges = ownPledges(pledgesSlot, () => void load());
  fill(el, h('h2', { id: 'raise-title' }, 'Fair launch'), figures, pledgesSlot, formSlot);
  const off = onWalletChange(() => (renderForm(), showPledges(last)));
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
