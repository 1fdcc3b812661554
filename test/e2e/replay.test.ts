/**
 * docs/payments.md replay rules with real signatures: the same PAYMENT-SIGNATURE for the same request
 * returns the original response and charges once — sequentially and 20 at a time — and a rule
 * that fails after verification is never settled.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningService } from '../../src/bootstrap/compose.js';
import { FakeFacilitator } from '../../src/adapters/facilitator/fake/fake-facilitator.js';
import { MemoryUnitOfWork } from '../../src/adapters/persistence/memory/memory-unit-of-work.js';
import { decodeBase64Json, devAccount, payingFetch, signPayment } from '../support/x402-client.js';
import { signedSellBody } from '../support/onchain.js';
import { json, settle, ShiftableClock, startTestService } from '../support/service.js';

const wallet = devAccount(6);
const clock = new ShiftableClock();
const facilitator = new FakeFacilitator({ clock, defaultBalance: 10_000_000_000n });
const uow = new MemoryUnitOfWork();
let service: RunningService;
let tokenId: string;

const post = (path: string, body: unknown, headers: Record<string, string> = {}, f: typeof fetch = fetch) =>
  f(`${service.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-wallet-address': wallet.address, ...headers },
    body: JSON.stringify(body),
  });

async function signed(path: string, body: unknown): Promise<Record<string, string>> {
  const challenge = await post(path, body);
  return { 'payment-signature': await signPayment(wallet, decodeBase64Json(challenge.headers.get('payment-required'))) };
}

beforeAll(async () => {
  service = await startTestService({ ports: { clock, facilitator, uow } });
  tokenId = (await json(await post('/tokens', { name: 'Replay', symbol: 'RPL' }, {}, payingFetch(wallet)))).data.tokenId;
});
afterAll(async () => {
  await service.stop();
});

describe('replaying a payment', () => {
  it('the same signature twice returns the identical response and settles once', async () => {
    const body = { tokenId, usdAmount: '3' };
    const headers = await signed('/entrypoints/token_buy_usd', body);
    const settlesBefore = facilitator.settleCalls;
    const first = await post('/entrypoints/token_buy_usd', body, headers);
    const second = await post('/entrypoints/token_buy_usd', body, headers);
    expect(first.status).toBe(200);
    expect(second.status).toBe(200);
    expect(await json(second)).toEqual(await json(first));
    expect(second.headers.get('payment-response')).toBe(first.headers.get('payment-response'));
    expect(facilitator.settleCalls - settlesBefore).toBe(1);
    // /x and /x/invoke are one resource
    expect((await post('/entrypoints/token_buy_usd/invoke', { input: body }, headers)).status).toBe(200);
    expect(uow.db.trades.filter((t) => t.usdAmount === 3_000_000n)).toHaveLength(1);
  });

  it('20 concurrent requests with one signature make one trade and one charge, all answered alike', async () => {
    const body = { tokenId, usdAmount: '4' };
    const headers = await signed('/entrypoints/token_buy_usd', body);
    const tradesBefore = uow.db.trades.length;
    const settledBefore = facilitator.settled.length;
    const responses = await Promise.all(Array.from({ length: 20 }, () => post('/entrypoints/token_buy_usd', body, headers)));
    const bodies = await Promise.all(responses.map((r) => json(r)));
    expect(responses.map((r) => r.status)).toEqual(Array(20).fill(200));
    for (const b of bodies) expect(b).toEqual(bodies[0]);
    expect(uow.db.trades.length - tradesBefore).toBe(1);
    expect(facilitator.settled.length - settledBefore).toBe(1);
  });

  it('a different signature for a used nonce learns nothing of the original answer', async () => {
    const body = { tokenId, usdAmount: '1.5' };
    const headers = await signed('/entrypoints/token_buy_usd', body);
    expect((await post('/entrypoints/token_buy_usd', body, headers)).status).toBe(200);
    const payload = decodeBase64Json<any>(headers['payment-signature']!);
    payload.payload.signature = `0x${'11'.repeat(65)}`;
    const forged = await post('/entrypoints/token_buy_usd', body, { 'payment-signature': Buffer.from(JSON.stringify(payload)).toString('base64') });
    expect(forged.status).toBe(402);
    const error = (await json(forged)).error;
    expect(error).toMatchObject({ code: 'PAYMENT_INVALID', details: { reason: 'nonce_already_used' } });
    expect(JSON.stringify(error)).not.toContain('tokensReceived');
  });

  it('the same signature for another request is PAYMENT_ALREADY_USED and charges nothing more', async () => {
    const body = { tokenId, usdAmount: '1' };
    const headers = await signed('/entrypoints/token_buy_usd', body);
    expect((await post('/entrypoints/token_buy_usd', body, headers)).status).toBe(200);
    const settled = facilitator.settled.length;
    const other = await post('/entrypoints/token_buy_usd', { ...body, minTokensOut: '1' }, headers);
    expect(other.status).toBe(409);
    expect((await json(other)).error.code).toBe('PAYMENT_ALREADY_USED');
    expect(facilitator.settled.length).toBe(settled);
  });

  it('a rule that fails for the payer is refused before anything is verified or settled', async () => {
    // The wallet's own tokens, its own authorization — but another wallet pays for the sell.
    await settle(service);
    const payer = devAccount(7);
    const body = await signedSellBody(service.url, wallet, tokenId, '1');
    const challenge = await post('/entrypoints/token_sell', body);
    expect(challenge.status).toBe(402);
    const signature = await signPayment(payer, decodeBase64Json(challenge.headers.get('payment-required')));
    const verifies = facilitator.verifyCalls;
    const settles = facilitator.settleCalls;
    const res = await post('/entrypoints/token_sell', body, { 'payment-signature': signature, 'x-wallet-address': payer.address });
    expect(res.status).toBe(409);
    expect((await json(res)).error).toMatchObject({ code: 'TOKEN_AUTHORIZATION_INVALID', details: { reason: 'payer' } });
    expect(facilitator.verifyCalls).toBe(verifies);
    expect(facilitator.settleCalls).toBe(settles);
  });
});

describe('what a payment is bound to', () => {
  it('a payload that names no resource is refused before it is verified (EIP-3009 does not sign it)', async () => {
    const body = { tokenId };
    const headers = await signed('/entrypoints/token_info', body);
    const payload = decodeBase64Json<any>(headers['payment-signature']!);
    delete payload.resource;
    const verifies = facilitator.verifyCalls;
    const res = await post('/entrypoints/token_info', body, { 'payment-signature': Buffer.from(JSON.stringify(payload)).toString('base64') });
    expect(res.status).toBe(402);
    expect((await json(res)).error).toMatchObject({ code: 'PAYMENT_INVALID', details: { reason: 'resource_missing' } });
    expect(res.headers.get('payment-required')).toBeTruthy();
    expect(facilitator.verifyCalls).toBe(verifies);
  });

  it('a payment signed for another operation of the same price is refused, not spent there', async () => {
    // $0.01 create and $0.01 sell: the same amount, but the resource differs.
    const headers = await signed('/tokens', { name: 'Bound', symbol: 'BND' });
    await settle(service);
    const res = await post('/entrypoints/token_sell', await signedSellBody(service.url, wallet, tokenId, '1'), headers);
    expect(res.status).toBe(402);
    expect((await json(res)).error.details.reason).toBe('resource_mismatch');
  });

  it('POST /tokens and /entrypoints/token_create are one resource: a payment for either pays, and replays, at both', async () => {
    const body = { name: 'Alias', symbol: 'ALIAS' };
    const headers = await signed('/tokens', body);
    const first = await post('/entrypoints/token_create', body, headers);
    expect(first.status).toBe(201);
    const again = await post('/tokens', body, headers);
    expect(again.status).toBe(201);
    expect(await json(again)).toEqual(await json(first));
    const other = await signed('/entrypoints/token_create/invoke', { name: 'Alias2', symbol: 'ALIAS2' });
    expect((await post('/tokens', { name: 'Alias2', symbol: 'ALIAS2' }, other)).status).toBe(201);
  });
});

describe('rules that change while a payment is in flight', () => {
  it('a rule that fails after verification (the position was sold meanwhile) is REJECTED, never settled', async () => {
    const seller = devAccount(8);
    const local = new MemoryUnitOfWork();
    const slowFacilitator = new FakeFacilitator({ clock, defaultBalance: 10_000_000_000n });
    let during: (() => Promise<unknown>) | null = null;
    const racing = await startTestService({
      ports: {
        clock,
        uow: local,
        facilitator: {
          verify: async (p, r) => {
            const result = await slowFacilitator.verify(p, r);
            await during?.();
            return result;
          },
          settle: (p, r) => slowFacilitator.settle(p, r),
          supported: () => slowFacilitator.supported(),
        },
      },
    });
    try {
      const pay = payingFetch(seller);
      const call = (path: string, body: unknown, headers: Record<string, string> = {}, f: typeof fetch = fetch) =>
        f(`${racing.url}${path}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-wallet-address': seller.address, ...headers },
          body: JSON.stringify(body),
        });
      const id = (await json(await call('/tokens', { name: 'Race', symbol: 'RACE' }, {}, pay))).data.tokenId;
      const bought = (await json(await call('/entrypoints/token_buy_usd', { tokenId: id, usdAmount: '2' }, {}, pay))).data;
      await settle(racing);
      const body = await signedSellBody(racing.url, seller, id, bought.tokensReceived);
      const other = await signedSellBody(racing.url, seller, id, bought.tokensReceived);
      const challenge = await call('/entrypoints/token_sell', body);
      const signature = await signPayment(seller, decodeBase64Json(challenge.headers.get('payment-required')));
      // While this sell is being verified, the same tokens are sold by another paid request.
      during = async () => {
        during = null;
        expect((await call('/entrypoints/token_sell', other, {}, pay)).status).toBe(200);
      };
      const settled = slowFacilitator.settled.length;
      const res = await call('/entrypoints/token_sell', body, { 'payment-signature': signature });
      expect(res.status).toBe(409);
      expect((await json(res)).error.code).toBe('INSUFFICIENT_BALANCE');
      expect(slowFacilitator.settled.length).toBe(settled + 1); // only the racing sell's payment
      const rejected = [...local.db.payments.values()].filter((p) => p.state === 'REJECTED');
      expect(rejected).toHaveLength(1);
      // replaying it returns the stored refusal
      expect((await call('/entrypoints/token_sell', body, { 'payment-signature': signature })).status).toBe(409);
    } finally {
      await racing.stop();
    }
  });

  it('a settled payment whose operation is refused when applied is REFUNDED with a payout', async () => {
    const buyer = devAccount(9);
    const local = new MemoryUnitOfWork();
    let afterSettle: (() => Promise<unknown>) | null = null;
    const racing = await startTestService({
      ports: { clock, uow: local, facilitator: new FakeFacilitator({ clock, defaultBalance: 10_000_000_000n }) },
      hooks: {
        afterSettle: async () => {
          await afterSettle?.();
        },
      },
    });
    try {
      const pay = payingFetch(buyer);
      const call = (path: string, body: unknown, headers: Record<string, string> = {}, f: typeof fetch = fetch) =>
        f(`${racing.url}${path}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-wallet-address': buyer.address, ...headers },
          body: JSON.stringify(body),
        });
      const id = (await json(await call('/tokens', { name: 'Refund', symbol: 'RFD' }, {}, pay))).data.tokenId;
      const body = { tokenId: id, usdAmount: '5', minTokensOut: '884495' };
      const challenge = await call('/entrypoints/token_buy_usd', body);
      const signature = await signPayment(buyer, decodeBase64Json(challenge.headers.get('payment-required')));
      // After this payment settles and before it applies, a whale buy moves the price past minTokensOut.
      afterSettle = async () => {
        afterSettle = null;
        const whale = await call('/entrypoints/token_buy_usd', { tokenId: id, usdAmount: '1000' }, {}, pay);
        if (whale.status !== 200) throw new Error(JSON.stringify(await json(whale)));
      };
      const res = await call('/entrypoints/token_buy_usd', body, { 'payment-signature': signature });
      expect(res.status).toBe(409);
      const error = (await json(res)).error;
      expect(error.code).toBe('SLIPPAGE_EXCEEDED');
      expect(error.details.refund).toMatchObject({ amount: '5', reason: 'refund', state: 'PENDING', wallet: buyer.address });
      const payment = local.db.payments.get(error.details.paymentId)!;
      expect(payment.state).toBe('REFUNDED');
      expect([...local.db.payouts.values()].filter((p) => p.reason === 'refund')).toHaveLength(1);
      expect(local.db.trades.filter((t) => t.paymentId === payment.paymentId)).toHaveLength(0);
    } finally {
      await racing.stop();
    }
  });
});
