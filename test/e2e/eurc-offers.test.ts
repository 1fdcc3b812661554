/**
 * EURC, the second payment asset (docs/pricing.md), over the signature-checking fake facilitator: every
 * 402 offers USDC then EURC per network, EURC at the USD price over the held EUR/USD quote rounded
 * up; the paid retry within 60 s matches that exact amount while the live price stays within the
 * spread bound, and is refused before settlement past it; a fresh quote after the hold; a refund
 * goes back in EURC; and no price is 503 with Retry-After, never a guessed EURC offer.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeFacilitator } from '../../src/adapters/facilitator/fake/fake-facilitator.js';
import { MemoryUnitOfWork } from '../../src/adapters/persistence/memory/memory-unit-of-work.js';
import type { RunningService } from '../../src/bootstrap/compose.js';
import { QuoteRouter } from '../../src/app/pricing/quote-router.js';
import { DEFAULT_SETTINGS } from '../../src/app/kit/default-settings.js';
import { requirementsFor } from '../../src/app/payments/requirements.js';
import { NETWORKS, PRODUCTION, TESTNET } from '../../src/domain/network.js';
import { ScriptedQuoteProvider } from '../support/scripted-quote-provider.js';
import { decodeBase64Json, devAccount, eurcOnly, payingFetch, preferEurc, signPayment } from '../support/x402-client.js';
import { json, ShiftableClock, startTestService } from '../support/service.js';

const wallet = devAccount(7); // a testnet wallet
const clock = new ShiftableClock();
const facilitator = new FakeFacilitator({ clock, defaultBalance: 10_000_000_000n });
const uow = new MemoryUnitOfWork();
const prices: Record<string, string> = { USDC: '1', EURC: '1.08' };
const quotes = new ScriptedQuoteProvider('scripted', clock, (asset) => ({ price: prices[asset]! }));
let service: RunningService;
let afterSettle: (() => Promise<unknown>) | null = null;

const post = (path: string, body: unknown, headers: Record<string, string> = {}, f: typeof fetch = fetch) =>
  f(`${service.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-wallet-address': wallet.address, ...headers },
    body: JSON.stringify(body),
  });
const offered = async (path: string, body: unknown, headers: Record<string, string> = {}) => {
  const res = await post(path, body, headers);
  expect(res.status).toBe(402);
  return decodeBase64Json<any>(res.headers.get('payment-required'));
};
const eurcAmount = (required: any) => required.accepts.find((a: any) => a.asset === NETWORKS[TESTNET].assets.EURC.address).amount;

beforeAll(async () => {
  service = await startTestService({
    ports: { clock, facilitator, uow, usdQuotes: quotes },
    hooks: {
      afterSettle: async () => {
        await afterSettle?.();
      },
    },
  });
});
afterAll(() => service.stop());

describe('EURC offers', () => {
  let tokenId: string;

  it('every 402 offers USDC then EURC per network, EURC at the USD price over EUR/USD rounded up to a unit', async () => {
    const required = await offered('/tokens', { name: 'Euro', symbol: 'EURO' }, { 'x-wallet-address': '' });
    const usd = 10_000n; // $0.01
    const eurc = (usd * 100n + 107n) / 108n; // ceil(10000 / 1.08) = 9260
    expect(required.accepts.filter((a: any) => a.scheme === 'exact').map((a: any) => [a.network, a.asset, a.amount, a.extra])).toEqual([
      [PRODUCTION, NETWORKS[PRODUCTION].usdc, '10000', { name: 'USD Coin', version: '2' }],
      [PRODUCTION, '0x60a3E35Cc302bFA44Cb288Bc5a4F316Fdb1adb42', eurc.toString(), { name: 'EURC', version: '2' }],
      [TESTNET, NETWORKS[TESTNET].usdc, '10000', { name: 'USDC', version: '2' }],
      [TESTNET, '0x808456652fdb597867f38412077A9182bf77359F', eurc.toString(), { name: 'EURC', version: '2' }],
    ]);
    expect(eurc).toBe(9260n);
  });

  it('a client preferring EURC pays in EURC; the payment records asset, amount, USD value and quote', async () => {
    const pay = payingFetch(wallet, fetch, preferEurc);
    const before = facilitator.balanceOf(TESTNET, wallet.address, 'EURC');
    const usdcBefore = facilitator.balanceOf(TESTNET, wallet.address, 'USDC');
    const created = await json(await post('/tokens', { name: 'Euro', symbol: 'EURO' }, {}, pay));
    tokenId = created.data.tokenId;
    const buy = await json(await post('/entrypoints/token_buy_usd', { tokenId, usdAmount: '5' }, {}, pay));
    expect(buy.data.usdSpent).toBe('5');
    expect(facilitator.balanceOf(TESTNET, wallet.address, 'EURC')).toBe(before - 9_260n - 4_629_630n); // ceil(5e6 / 1.08)
    expect(facilitator.balanceOf(TESTNET, wallet.address, 'USDC')).toBe(usdcBefore);
    const payment = uow.db.payments.get(buy.data.payment.paymentId)!;
    expect(payment).toMatchObject({ asset: 'EURC', amount: 4_629_630n, usdValue: 5_000_000n, quotePrice: { mantissa: 108n, scale: 2 } });
    expect(payment.quoteId).toMatch(/^aqt_/);
    const view = (await json(await fetch(`${service.url}/api/payments/${payment.paymentId}`))).data;
    expect(view).toMatchObject({ asset: 'EURC', amount: '4.62963', usdValue: '5', quoteId: payment.quoteId });
    // The trade is booked in USD.
    expect(uow.db.trades.find((t) => t.paymentId === payment.paymentId)!.usdAmount).toBe(5_000_000n);
  });

  it('the quote is held 60 s per request: the paid retry matches while the live price stays within the spread bound; then a fresh quote', async () => {
    const body = { tokenId, usdAmount: '2' };
    const first = await offered('/entrypoints/token_buy_usd', body);
    expect(eurcAmount(first)).toBe('1851852'); // ceil(2e6 / 1.08)
    prices.EURC = '1.0854'; // +0.5%: inside QUOTE_MAX_SPREAD_BPS (100 bps)
    try {
      clock.offsetMs += 30_000;
      expect(eurcAmount(await offered('/entrypoints/token_buy_usd', body))).toBe('1851852'); // held
      expect(eurcAmount(await offered('/entrypoints/token_buy_usd', { tokenId, usdAmount: '2.5' }))).toBe('2303299'); // another body: priced now
      const paid = await post('/entrypoints/token_buy_usd', body, { 'payment-signature': await signPayment(wallet, eurcOnly(first)) });
      expect(paid.status).toBe(200);
      const payment = uow.db.payments.get((await json(paid)).data.payment.paymentId)!;
      expect(payment).toMatchObject({ asset: 'EURC', amount: 1_851_852n, quotePrice: { mantissa: 108n, scale: 2 } });

      clock.offsetMs += 31_000; // past the hold
      expect(eurcAmount(await offered('/entrypoints/token_buy_usd', body))).toBe('1842639'); // a fresh quote: ceil(2e6 / 1.0854)
    } finally {
      prices.EURC = '1.08';
      clock.offsetMs = 0;
    }
  });

  it('a payment at a held quote whose hold expired while the price moved is refused as quote_expired, with the fresh price; nothing charged', async () => {
    const body = { tokenId, usdAmount: '2', minTokensOut: '1' };
    prices.EURC = '1.25';
    try {
      clock.offsetMs = -61_000; // the 402 was answered 61 s ago: its hold has expired by now
      const held = await offered('/entrypoints/token_buy_usd', body);
      expect(eurcAmount(held)).toBe('1600000'); // 2e6 / 1.25
      clock.offsetMs = 0;
      const stale = await signPayment(wallet, eurcOnly(held)); // its authorization is still valid
      prices.EURC = '1.28';
      const before = facilitator.balanceOf(TESTNET, wallet.address, 'EURC');
      const settles = facilitator.settleCalls;
      const refused = await post('/entrypoints/token_buy_usd', body, { 'payment-signature': stale });
      expect(refused.status).toBe(402);
      const error = (await json(refused)).error;
      expect(error).toMatchObject({ code: 'PAYMENT_INVALID', details: { reason: 'quote_expired' } });
      expect(error.message).toMatch(/expired at .*nothing was charged/);
      expect(eurcAmount(error.details.paymentRequired)).toBe('1562500'); // the fresh quote: 2e6 / 1.28
      expect(eurcAmount(decodeBase64Json(refused.headers.get('payment-required')))).toBe('1562500');
      expect(facilitator.balanceOf(TESTNET, wallet.address, 'EURC')).toBe(before);
      expect(facilitator.settleCalls).toBe(settles);
    } finally {
      prices.EURC = '1.08';
      clock.offsetMs = 0;
    }
  });

  it('a held quote the live price moved past the spread bound is not honoured: refused before settlement, nothing charged, the 402 offers the live price', async () => {
    const body = { tokenId, usdAmount: '100' };
    const first = await offered('/entrypoints/token_buy_usd', body);
    expect(eurcAmount(first)).toBe('92592593'); // ceil(100e6 / 1.08)
    const signature = await signPayment(wallet, eurcOnly(first));
    const eurcBefore = facilitator.balanceOf(TESTNET, wallet.address, 'EURC');
    const usdcBefore = facilitator.balanceOf(TESTNET, wallet.address, 'USDC');
    const settles = facilitator.settleCalls;
    const payments = uow.db.payments.size;
    const trades = uow.db.trades.length;
    prices.EURC = '0.54'; // EUR/USD halves inside the 60 s hold: the held EURC amount is worth $50 at the live feed
    try {
      clock.offsetMs += 20_000;
      const res = await post('/entrypoints/token_buy_usd', body, { 'payment-signature': signature });
      expect(res.status).toBe(402);
      const error = (await json(res)).error;
      expect(error).toMatchObject({ code: 'PAYMENT_INVALID', details: { reason: 'quote_moved', heldPrice: '1.08', livePrice: '0.54', maxSpreadBps: 100 } });
      expect(error.message).toMatch(/nothing was charged/);
      // Nothing moved, nothing was booked.
      expect(facilitator.balanceOf(TESTNET, wallet.address, 'EURC')).toBe(eurcBefore);
      expect(facilitator.balanceOf(TESTNET, wallet.address, 'USDC')).toBe(usdcBefore);
      expect(facilitator.settleCalls).toBe(settles);
      expect(uow.db.payments.size).toBe(payments);
      expect(uow.db.trades.length).toBe(trades);
      // The 402 offers the live price (the hold was dropped), and it pays.
      const fresh = decodeBase64Json<any>(res.headers.get('payment-required'));
      expect(eurcAmount(fresh)).toBe('185185186'); // ceil(100e6 / 0.54)
      expect(eurcAmount(await offered('/entrypoints/token_buy_usd', body))).toBe('185185186');
      const paid = await post('/entrypoints/token_buy_usd', body, { 'payment-signature': await signPayment(wallet, eurcOnly(fresh)) });
      expect(paid.status).toBe(200);
      const payment = uow.db.payments.get((await json(paid)).data.payment.paymentId)!;
      expect(payment).toMatchObject({ asset: 'EURC', amount: 185_185_186n, usdValue: 100_000_000n, quotePrice: { mantissa: 54n, scale: 2 } });
      expect(facilitator.balanceOf(TESTNET, wallet.address, 'EURC')).toBe(eurcBefore - 185_185_186n);
    } finally {
      prices.EURC = '1.08';
      clock.offsetMs = 0;
    }
  });

  it('a settled EURC payment whose operation is refused is refunded in EURC, the amount paid', async () => {
    const pay = payingFetch(wallet, fetch, preferEurc);
    const body = { tokenId, usdAmount: '3', minTokensOut: '1' };
    const challenge = await offered('/entrypoints/token_buy_usd', { ...body, minTokensOut: '400000' });
    const signature = await signPayment(wallet, eurcOnly(challenge));
    afterSettle = async () => {
      afterSettle = null;
      const whale = await post('/entrypoints/token_buy_usd', { tokenId, usdAmount: '1000' }, {}, pay);
      if (whale.status !== 200) throw new Error(JSON.stringify(await json(whale)));
    };
    const res = await post('/entrypoints/token_buy_usd', { ...body, minTokensOut: '400000' }, { 'payment-signature': signature });
    expect(res.status).toBe(409);
    const error = (await json(res)).error;
    expect(error.code).toBe('SLIPPAGE_EXCEEDED');
    expect(error.details.refund).toMatchObject({ asset: 'EURC', amount: '2.777778', reason: 'refund' }); // ceil(3e6 / 1.08)
    const payout = uow.db.payouts.get(error.details.refund.payoutId)!;
    expect(payout).toMatchObject({ asset: 'EURC', amount: 2_777_778n, reason: 'refund' });
    expect(uow.db.payments.get(error.details.paymentId)).toMatchObject({ state: 'REFUNDED', asset: 'EURC', amount: 2_777_778n });
  });
});

describe('faults around an EURC settlement', () => {
  it('a settlement that times out after the EURC moved is applied by the reconciler, which reads the EURC contract', async () => {
    const tokenId = (await json(await post('/tokens', { name: 'Slow', symbol: 'SLOW' }, {}, payingFetch(wallet)))).data.tokenId;
    const challenge = await offered('/entrypoints/token_info', { tokenId });
    const signature = await signPayment(wallet, eurcOnly(challenge));
    const before = facilitator.balanceOf(TESTNET, wallet.address, 'EURC');
    facilitator.timeoutNextSettle({ transfers: true });
    const res = await post('/entrypoints/token_info', { tokenId }, { 'payment-signature': signature });
    expect(res.status).toBe(202);
    const paymentId = (await json(res)).data.paymentId;
    expect(uow.db.payments.get(paymentId)).toMatchObject({ state: 'SETTLING', asset: 'EURC', amount: 926n }); // ceil(1000 / 1.08)
    prices.EURC = '1.5'; // the rate moves meanwhile: the reconciler prices at the payment's own quote
    try {
      clock.offsetMs += 31_000; // past the reconciler's grace
      await service.runWorkers();
    } finally {
      prices.EURC = '1.08';
      clock.offsetMs = 0;
    }
    expect(uow.db.payments.get(paymentId)!.state).toBe('APPLIED');
    expect(facilitator.balanceOf(TESTNET, wallet.address, 'EURC')).toBe(before - 926n);
    // The same signature again answers the stored result, charging nothing more.
    const again = await post('/entrypoints/token_info', { tokenId }, { 'payment-signature': signature });
    expect(again.status).toBe(200);
    expect(facilitator.balanceOf(TESTNET, wallet.address, 'EURC')).toBe(before - 926n);
  });
});

describe('no EUR/USD price', () => {
  it('an unpaid request is 503 SERVICE_UNAVAILABLE with Retry-After — no EURC offer is guessed; USDC payments still settle', async () => {
    const down = new ScriptedQuoteProvider('scripted', clock, (asset) => (asset === 'EURC' ? { fail: 'unavailable' } : { price: '1' }));
    const router = new QuoteRouter({ providers: [{ provider: down, limit: { points: 100, durationSeconds: 1, maxQueueSize: 10 }, timeoutMs: 1_000 }], clock });
    const local = await startTestService({ ports: { clock, facilitator, uow: new MemoryUnitOfWork(), priceBoard: router } });
    try {
      const res = await fetch(`${local.url}/tokens`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-wallet-address': wallet.address },
        body: JSON.stringify({ name: 'Down', symbol: 'DOWN' }),
      });
      expect(res.status).toBe(503);
      expect(res.headers.get('retry-after')).toMatch(/^\d+$/);
      expect(res.headers.get('payment-required')).toBeNull();
      expect((await json(res)).error.code).toBe('SERVICE_UNAVAILABLE');

      // A client that knows the USDC price pays it: only the paid asset's price is needed.
      const url = `${local.url}/tokens`;
      const required = { x402Version: 2, resource: { url, description: '', mimeType: 'application/json' }, accepts: [requirementsFor(TESTNET, 10_000n, DEFAULT_SETTINGS.payTo[TESTNET])] };
      const paid = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'payment-signature': await signPayment(wallet, required as never) },
        body: JSON.stringify({ name: 'Down', symbol: 'DOWN' }),
      });
      expect(paid.status, JSON.stringify(await paid.clone().json())).toBe(201);
    } finally {
      await local.stop();
    }
  });
});
