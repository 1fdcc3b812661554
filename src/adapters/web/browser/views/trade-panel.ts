/**
 * Buy and sell from the token page. A buy spends an exact USD amount; a sell first asks the wallet
 * to sign the token permission custody pulls the tokens with (docs/api.md "token_sell"), then pays
 * the sell's fee. Results show the delivery of bought tokens and the payout of proceeds until
 * they are confirmed on chain.
 */
import { get, query } from '../api.js';
import { announce, fill, h } from '../dom.js';
import { fromUnits, toUnits } from '../format.js';
import { connect, currentAddress, onWalletChange } from '../session.js';
import type { BuyResult, Delivery, Payout, Positions, SellResult, Token } from '../types.js';
import { amount, errorBox, pnl, stateBadge } from '../ui.js';
import { checkout } from './checkout.js';

const TOKEN_DECIMALS = 18;
const FINAL = new Set(['CONFIRMED', 'FAILED']);

/** Follows a delivery or payout until it is final, showing its state. */
function follow(kind: 'deliveries' | 'payouts', id: string, slot: HTMLElement, done: () => void, signal: AbortSignal): void {
  const tick = async () => {
    if (signal.aborted) return;
    try {
      const item = await get<Delivery | Payout>(`/api/${kind}/${encodeURIComponent(id)}`);
      fill(slot, stateBadge(item.state), item.txHash ? h('code', { class: 'hash', title: item.txHash }, ` ${item.txHash.slice(0, 10)}…`) : null);
      if (FINAL.has(item.state)) {
        announce(`${kind === 'deliveries' ? 'Delivery' : 'Payout'} ${item.state.toLowerCase()}.`);
        done();
        return;
      }
    } catch {
      // Shown again on the next look.
    }
    setTimeout(() => void tick(), 1000);
  };
  void tick();
}

export function tradePanel(token: Token, onTraded: () => void): { el: HTMLElement; cleanup: () => void } {
  const el = h('section', { class: 'panel trade', 'aria-labelledby': 'trade-title' });
  const stop = new AbortController();
  let side: 'buy' | 'sell' = 'buy';
  let holding: { balance: string; position: Positions['items'][number] | null } = { balance: '0', position: null };

  const render = () => {
    const wallet = currentAddress();
    const title = h('h2', { id: 'trade-title' }, 'Trade');
    if (token.state === 'GRADUATED' && token.pool?.state !== 'CREATED') {
      fill(el, title, h('p', {}, 'This token graduated; trading resumes through its Uniswap v2 pool once the pool is created.'));
      return;
    }
    if (!wallet) {
      fill(el, title, h('p', {}, 'Connect a browser wallet to buy and sell. You pay in USDC with an x402 authorization your wallet signs.'), h('button', { type: 'button', class: 'primary', onclick: () => void connect().catch((e: unknown) => fill(el, title, errorBox(e))) }, 'Connect wallet'));
      return;
    }
    const tabs = (['buy', 'sell'] as const).map((s) =>
      h(
        'button',
        { type: 'button', role: 'tab', id: `tab-${s}`, 'aria-selected': String(side === s), 'aria-controls': 'trade-form', tabindex: side === s ? 0 : -1, onclick: () => ((side = s), render()) },
        s === 'buy' ? 'Buy' : 'Sell',
      ),
    );
    const tablist = h('div', { role: 'tablist', 'aria-label': 'Buy or sell', class: 'tabs' }, tabs);
    tablist.addEventListener('keydown', (e) => {
      if (e.key !== 'ArrowLeft' && e.key !== 'ArrowRight') return;
      side = side === 'buy' ? 'sell' : 'buy';
      render();
      document.getElementById(`tab-${side}`)?.focus();
    });
    const holdingLine = h('p', { class: 'holding', 'data-testid': 'holding' }, 'You hold ', amount(holding.balance, 'tokens', token.symbol), holding.position ? [' · value ', amount(holding.position.valueUsd, 'usd'), ' · PnL ', pnl(holding.position.unrealizedPnlUsd)] : null);
    const box = h('div', { class: 'checkout', 'aria-live': 'polite' });
    const result = h('div', { class: 'result', 'data-testid': 'trade-result' });
    const form = side === 'buy' ? buyForm(wallet, box, result) : sellForm(wallet, box, result);
    fill(el, title, tablist, h('div', { id: 'trade-form', role: 'tabpanel', 'aria-labelledby': `tab-${side}` }, holdingLine, form, box, result));
  };

  const loadHolding = async () => {
    const wallet = currentAddress();
    if (!wallet) return;
    try {
      const p = await get<Positions>(`/positions${query({ wallet, network: token.network })}`);
      const position = p.items.find((i) => i.tokenId === token.tokenId) ?? null;
      holding = { balance: position ? (position.onChainBalance ?? position.balance) : '0', position };
    } catch {
      holding = { balance: '0', position: null };
    }
    const line = el.querySelector('[data-testid="holding"]');
    if (line) {
      // Only the figures change; a form being filled in stays as it is.
      fill(line, 'You hold ', amount(holding.balance, 'tokens', token.symbol), holding.position ? [' · value ', amount(holding.position.valueUsd, 'usd'), ' · PnL ', pnl(holding.position.unrealizedPnlUsd)] : null);
    }
  };

  function buyForm(wallet: string, box: HTMLElement, result: HTMLElement): HTMLElement {
    const input = h('input', { id: 'buy-usd', name: 'usdAmount', inputmode: 'decimal', autocomplete: 'off', required: true, value: '1', 'aria-describedby': 'buy-hint' });
    const quick = ['1', '5', '20'].map((v) => h('button', { type: 'button', class: 'chip', onclick: () => (input.value = v) }, `$${v}`));
    const hint = h('p', { id: 'buy-hint', class: 'muted small' }, 'USD spent, the 1% fee included. You receive at least 99% of the quoted tokens or pay nothing.');
    const form = h('form', { class: 'stack', novalidate: true }, h('label', { for: 'buy-usd' }, 'Amount in USD'), h('div', { class: 'row' }, input, quick), hint, h('button', { type: 'submit', class: 'primary' }, 'Review buy'));
    form.addEventListener('submit', async (e) => {
      e.preventDefault();
      fill(result);
      const usdAmount = input.value.trim();
      if (toUnits(usdAmount, 6) === null || toUnits(usdAmount, 6) === 0n) {
        fill(box, errorBox(new Error('Enter a USD amount such as 1 or 2.50 (at most 6 decimals).')));
        input.focus();
        return;
      }
      try {
        const quote = await get<{ tokens: string; minTokensOut: string; feeUsd: string; priceUsd: string }>(`/api/quote${query({ tokenId: token.tokenId, side: 'buy', usdAmount })}`);
        await checkout<BuyResult>(box, {
          url: '/entrypoints/token_buy_usd',
          body: { tokenId: token.tokenId, usdAmount, minTokensOut: quote.minTokensOut },
          wallet,
          what: `Buy about ${quote.tokens} ${token.symbol} for $${usdAmount} (fee $${quote.feeUsd}).`,
          onAnswer: ({ data, transaction }) => {
            const delivery = h('span', { 'data-testid': 'delivery-state' });
            fill(
              result,
              h('p', { class: 'ok' }, 'Bought ', h('span', { 'data-testid': 'tokens-received', 'data-exact': data.tokensReceived }, amount(data.tokensReceived, 'tokens', token.symbol)), ' for ', amount(data.usdSpent, 'usd'), ' (fee ', amount(data.feeUsd, 'usd'), ').'),
              transaction ? h('p', { class: 'muted small' }, 'Payment ', h('code', { class: 'hash', title: transaction }, transaction.slice(0, 10) + '…')) : null,
              h('p', {}, 'Delivery to your wallet: ', delivery),
            );
            announce(`Bought ${data.tokensReceived} ${token.symbol}.`);
            onTraded();
            void loadHolding();
            follow('deliveries', data.delivery.deliveryId, delivery, () => void loadHolding(), stop.signal);
          },
        });
      } catch (err) {
        fill(box, errorBox(err));
      }
    });
    return form;
  }

  function sellForm(wallet: string, box: HTMLElement, result: HTMLElement): HTMLElement {
    const input = h('input', { id: 'sell-tokens', name: 'tokens', inputmode: 'decimal', autocomplete: 'off', required: true, 'aria-describedby': 'sell-hint' });
    const share = (num: bigint, den: bigint) => {
      const units = toUnits(holding.balance, TOKEN_DECIMALS) ?? 0n;
      input.value = fromUnits((units * num) / den, TOKEN_DECIMALS);
    };
    const quick = [
      ['25%', 1n, 4n],
      ['50%', 1n, 2n],
      ['Max', 1n, 1n],
    ].map(([label, n, d]) => h('button', { type: 'button', class: 'chip', onclick: () => share(n as bigint, d as bigint) }, label as string));
    const hint = h('p', { id: 'sell-hint', class: 'muted small' }, 'Tokens from your wallet. You sign a permission for exactly this many, then pay the $0.01 sell fee; the USDC proceeds are sent to your wallet.');
    const form = h('form', { class: 'stack', novalidate: true }, h('label', { for: 'sell-tokens' }, `Tokens of ${token.symbol} to sell`), h('div', { class: 'row' }, input, quick), hint, h('button', { type: 'submit', class: 'primary' }, 'Review sell'));
    form.addEventListener('submit', async (e) => {
      e.preventDefault();
      fill(result);
      const tokens = input.value.trim();
      const units = toUnits(tokens, TOKEN_DECIMALS);
      if (units === null || units === 0n) {
        fill(box, errorBox(new Error('Enter how many tokens to sell (at most 18 decimals), or pick a share of what you hold.')));
        input.focus();
        return;
      }
      try {
        const quote = await get<{ usdAmount: string; minUsdOut: string; feeUsd: string }>(`/api/quote${query({ tokenId: token.tokenId, side: 'sell', tokens })}`);
        const sign = h('button', { type: 'button', class: 'primary' }, `Sign permission to move ${tokens} ${token.symbol}`);
        fill(
          box,
          h('p', {}, `Sell ${tokens} ${token.symbol} for about $${quote.usdAmount} after the $${quote.feeUsd} trading fee.`),
          h('p', { class: 'muted small' }, 'Step 1 of 2: your wallet signs a permission (no payment) for custody to take exactly these tokens.'),
          h('div', { class: 'actions' }, sign),
        );
        sign.focus();
        sign.addEventListener('click', async () => {
          sign.disabled = true;
          try {
            const auth = await get<{ typedData: { domain: Record<string, unknown>; types: Record<string, unknown>; primaryType: string; message: Record<string, unknown> }; tokenAuthorization: Record<string, string> }>(
              `/api/tokens/${encodeURIComponent(token.tokenId)}/sell-authorization${query({ wallet, tokens })}`,
            );
            const { signTypedData } = await import('../wallet.js');
            const t = auth.typedData;
            const m = t.message as Record<string, string>;
            const signature = await signTypedData(wallet, {
              ...t,
              message: { ...m, value: BigInt(m.value!), validAfter: BigInt(m.validAfter!), validBefore: BigInt(m.validBefore!) },
            });
            await checkout<SellResult>(box, {
              url: '/entrypoints/token_sell',
              body: { tokenId: token.tokenId, tokens, minUsdOut: quote.minUsdOut, tokenAuthorization: { ...auth.tokenAuthorization, signature } },
              wallet,
              what: `Step 2 of 2: pay the sell fee to sell ${tokens} ${token.symbol}.`,
              onAnswer: ({ data }) => {
                const payout = h('span', { 'data-testid': 'payout-state' });
                fill(
                  result,
                  h('p', { class: 'ok' }, 'Sold ', h('span', { 'data-testid': 'tokens-sold', 'data-exact': data.tokensSold }, amount(data.tokensSold, 'tokens', token.symbol)), ' for ', h('span', { 'data-testid': 'usd-received', 'data-exact': data.usdReceived }, amount(data.usdReceived, 'usd')), ' after a fee of ', amount(data.feeUsd, 'usd'), '.'),
                  h('p', {}, `Payout of ${data.payout.amount} ${data.payout.asset ?? 'USDC'} to your wallet: `, payout),
                );
                announce(`Sold ${data.tokensSold} ${token.symbol}.`);
                onTraded();
                void loadHolding();
                follow('payouts', data.payout.payoutId, payout, () => void loadHolding(), stop.signal);
              },
            });
          } catch (err) {
            fill(box, errorBox(err));
          }
        });
      } catch (err) {
        fill(box, errorBox(err));
      }
    });
    return form;
  }

  const off = onWalletChange(() => {
    holding = { balance: '0', position: null };
    render();
    void loadHolding();
  });
  render();
  void loadHolding();
  return {
    el,
    cleanup: () => {
      stop.abort();
      off();
    },
  };
}
