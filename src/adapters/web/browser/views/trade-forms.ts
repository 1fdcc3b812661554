/**
 * The trade panel's two forms. A buy spends an exact USD amount; a sell first asks the wallet to
 * sign the token permission custody pulls the tokens with (docs/api.md "token_sell"), then pays
 * the sell's fee.
 */
import { read } from '../api.js';
import { announce, fill, h } from '../dom.js';
import { fromUnits, grouped, toUnits } from '../format.js';
import type { Answered } from '../pay.js';
import type { BuyResult, ReadOutputs, SellResult, Token } from '../types.js';
import { amount, errorBox } from '../ui.js';
import { checkout } from './checkout.js';

const TOKEN_DECIMALS = 18;

/** What a form works with: the panel's token and wallet, where it shows its steps, and what follows a trade. */
export interface TradeForm {
  token: Token;
  wallet: string;
  /** The checkout: the quote, the payment's steps, a refusal. */
  box: HTMLElement;
  /** The trade's answer. */
  result: HTMLElement;
  /** The balance the panel shows; the sell form's shares are of it. */
  balance(): string;
  /** After an answer: the page refreshes and the delivery or payout is followed in `slot`. */
  traded(kind: 'deliveries' | 'payouts', id: string, slot: HTMLElement): void;
}

/** A sell's quote: its minUsdOut is the least the sell accepts. */
type SellQuote = ReadOutputs['quote'];

export function buyForm(f: TradeForm): HTMLElement {
  const input = h('input', { id: 'buy-usd', name: 'usdAmount', inputmode: 'decimal', autocomplete: 'off', required: true, value: '1', 'aria-describedby': 'buy-hint' });
  const quick = ['1', '5', '20'].map((v) => h('button', { type: 'button', class: 'chip', onclick: () => (input.value = v) }, `$${v}`));
  const hint = h('p', { id: 'buy-hint', class: 'muted small' }, 'USD spent, the 1% fee included. You receive at least 99% of the quoted tokens or pay nothing.');
  const form = h('form', { class: 'stack', novalidate: true }, h('label', { for: 'buy-usd' }, 'Amount in USD'), h('div', { class: 'row' }, input, quick), hint, h('button', { type: 'submit', class: 'primary' }, 'Review buy'));
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    await buy(f, input);
  });
  return form;
}

/** Quotes the amount typed, then pays for the buy with a floor of 99% of the quoted tokens. */
async function buy(f: TradeForm, input: HTMLInputElement): Promise<void> {
  fill(f.result);
  const usdAmount = input.value.trim();
  if (toUnits(usdAmount, 6) === null || toUnits(usdAmount, 6) === 0n) {
    fill(f.box, errorBox(new Error('Enter a USD amount such as 1 or 2.50 (at most 6 decimals).')));
    input.focus();
    return;
  }
  try {
    const quote = await read('quote', {}, { tokenId: f.token.tokenId, side: 'buy', usdAmount });
    await checkout<BuyResult>(f.box, {
      url: '/entrypoints/token_buy_usd',
      body: { tokenId: f.token.tokenId, usdAmount, minTokensOut: quote.minTokensOut },
      wallet: f.wallet,
      what: `Buy about ${grouped(quote.tokens)} ${f.token.symbol} for $${grouped(usdAmount)} (fee $${grouped(quote.feeUsd)}).`,
      onAnswer: (answer) => bought(f, answer),
    });
  } catch (err) {
    fill(f.box, errorBox(err));
  }
}

function bought(f: TradeForm, { data, transaction }: Answered<BuyResult>): void {
  const delivery = h('span', { 'data-testid': 'delivery-state' });
  fill(
    f.result,
    h('p', { class: 'ok' }, 'Bought ', h('span', { 'data-testid': 'tokens-received', 'data-exact': data.tokensReceived }, amount(data.tokensReceived, 'tokens', f.token.symbol)), ' for ', amount(data.usdSpent, 'usd'), ' (fee ', amount(data.feeUsd, 'usd'), ').'),
    transaction ? h('p', { class: 'muted small' }, 'Payment ', h('code', { class: 'hash', title: transaction }, transaction.slice(0, 10) + '…')) : null,
    h('p', {}, 'Delivery to your wallet: ', delivery),
  );
  announce(`Bought ${data.tokensReceived} ${f.token.symbol}.`);
  f.traded('deliveries', data.delivery.deliveryId, delivery);
}

export function sellForm(f: TradeForm): HTMLElement {
  const input = h('input', { id: 'sell-tokens', name: 'tokens', inputmode: 'decimal', autocomplete: 'off', required: true, 'aria-describedby': 'sell-hint' });
  const share = (num: bigint, den: bigint) => {
    const units = toUnits(f.balance(), TOKEN_DECIMALS) ?? 0n;
    input.value = fromUnits((units * num) / den, TOKEN_DECIMALS);
  };
  const quick = [
    ['25%', 1n, 4n],
    ['50%', 1n, 2n],
    ['Max', 1n, 1n],
  ].map(([label, n, d]) => h('button', { type: 'button', class: 'chip', onclick: () => share(n as bigint, d as bigint) }, label as string));
  const hint = h('p', { id: 'sell-hint', class: 'muted small' }, 'Tokens from your wallet. You sign a permission for exactly this many, then pay the $0.01 sell fee; the USDC proceeds are sent to your wallet.');
  const form = h('form', { class: 'stack', novalidate: true }, h('label', { for: 'sell-tokens' }, `Tokens of ${f.token.symbol} to sell`), h('div', { class: 'row' }, input, quick), hint, h('button', { type: 'submit', class: 'primary' }, 'Review sell'));
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    await reviewSell(f, input);
  });
  return form;
}

/** Quotes the tokens typed and offers step 1 of 2: signing the permission to move them. */
async function reviewSell(f: TradeForm, input: HTMLInputElement): Promise<void> {
  fill(f.result);
  const tokens = input.value.trim();
  const units = toUnits(tokens, TOKEN_DECIMALS);
  if (units === null || units === 0n) {
    fill(f.box, errorBox(new Error('Enter how many tokens to sell (at most 18 decimals), or pick a share of what you hold.')));
    input.focus();
    return;
  }
  try {
    const quote = await read('quote', {}, { tokenId: f.token.tokenId, side: 'sell', tokens });
    const sign = h('button', { type: 'button', class: 'primary' }, `Sign permission to move ${grouped(tokens)} ${f.token.symbol}`);
    fill(
      f.box,
      h('p', {}, `Sell ${grouped(tokens)} ${f.token.symbol} for about $${grouped(quote.usdAmount)} after the $${grouped(quote.feeUsd)} trading fee.`),
      h('p', { class: 'muted small' }, 'Step 1 of 2: your wallet signs a permission (no payment) for custody to take exactly these tokens.'),
      h('div', { class: 'actions' }, sign),
    );
    sign.focus();
    sign.addEventListener('click', async () => {
      sign.disabled = true;
      await sell(f, tokens, quote);
    });
  } catch (err) {
    fill(f.box, errorBox(err));
  }
}

/** Step 2 of 2: with the permission signed, pays the sell's fee. */
async function sell(f: TradeForm, tokens: string, quote: SellQuote): Promise<void> {
  try {
    const tokenAuthorization = await signPermission(f, tokens);
    await checkout<SellResult>(f.box, {
      url: '/entrypoints/token_sell',
      body: { tokenId: f.token.tokenId, tokens, minUsdOut: quote.minUsdOut, tokenAuthorization },
      wallet: f.wallet,
      what: `Step 2 of 2: pay the sell fee to sell ${grouped(tokens)} ${f.token.symbol}.`,
      onAnswer: ({ data }) => sold(f, data),
    });
  } catch (err) {
    fill(f.box, errorBox(err));
  }
}

/** The token permission custody pulls the tokens with, signed by the wallet (EIP-712). */
async function signPermission(f: TradeForm, tokens: string): Promise<Record<string, string>> {
  const auth = await read('sell_authorization', { id: f.token.tokenId }, { wallet: f.wallet, tokens });
  const { signTypedData } = await import('../wallet.js');
  const t = auth.typedData;
  const m = t.message as Record<string, string>;
  const signature = await signTypedData(f.wallet, {
    ...t,
    message: { ...m, value: BigInt(m.value!), validAfter: BigInt(m.validAfter!), validBefore: BigInt(m.validBefore!) },
  });
  return { ...auth.tokenAuthorization, signature };
}

function sold(f: TradeForm, data: SellResult): void {
  const payout = h('span', { 'data-testid': 'payout-state' });
  fill(
    f.result,
    h('p', { class: 'ok' }, 'Sold ', h('span', { 'data-testid': 'tokens-sold', 'data-exact': data.tokensSold }, amount(data.tokensSold, 'tokens', f.token.symbol)), ' for ', h('span', { 'data-testid': 'usd-received', 'data-exact': data.usdReceived }, amount(data.usdReceived, 'usd')), ' after a fee of ', amount(data.feeUsd, 'usd'), '.'),
    h('p', {}, `Payout of ${data.payout.amount} ${data.payout.asset ?? 'USDC'} to your wallet: `, payout),
  );
  announce(`Sold ${data.tokensSold} ${f.token.symbol}.`);
  f.traded('payouts', data.payout.payoutId, payout);
}
