/**
 * Pay up to (docs/payments.md "Pay up to", decision 0082): token_buy_tokens' price is a maximum,
 * so its 402 offers x402's `upto` beside exact and batch-settlement; the official @x402/evm upto
 * client signs a Permit2 transfer of the maximum and is charged the price the trade runs at —
 * through a listening service over the fake chain's Permit2 and upto proxy. A maximum below the
 * price is refused, the same payment again is answered as it was, and a settlement whose outcome
 * is unknown is decided by the Permit2 nonce on chain: spent by the settlement → applied once;
 * spent otherwise → FAILED, nothing charged. A refused buy is paid back by a payout.
 */
import { encodePaymentSignatureHeader } from '@x402/core/http';
import { UptoEvmScheme } from '@x402/evm/upto/client';
import { wrapFetchWithPaymentFromConfig, type PaymentRequirements } from '@x402/fetch';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeFacilitator } from '../../src/adapters/facilitator/fake/fake-facilitator.js';
import { MemoryUnitOfWork } from '../../src/adapters/persistence/memory/memory-unit-of-work.js';
import type { RunningService } from '../../src/bootstrap/compose.js';
import { parseTokens, parseUsd } from '../../src/domain/money.js';
import { NETWORKS, TESTNET } from '../../src/domain/network.js';
import { decodeBase64Json, devAccount, payingFetch } from '../support/x402-client.js';
import { json, ShiftableClock, startTestService } from '../support/service.js';
import { payment } from '../support/fixtures.js';

const TREASURY = '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266';
const USDC = NETWORKS[TESTNET].assets.USDC.address;
const payer = devAccount(7);
const creator = devAccount(8);

let service: RunningService;
let facilitator: FakeFacilitator;
let uow: MemoryUnitOfWork;
let clock: ShiftableClock;
let tokenId: string;
let afterSettle: (() => Promise<void>) | null = null;

beforeAll(async () => {
  clock = new ShiftableClock();
  facilitator = new FakeFacilitator({ clock, defaultBalance: 10_000_000_000n });
  uow = new MemoryUnitOfWork();
  service = await startTestService({
    ports: { clock, facilitator, uow },
    hooks: {
      afterSettle: async () => {
        const f = afterSettle;
        afterSettle = null;
        await f?.();
      },
    },
  });
  const res = await post('/tokens', { name: 'Up To', symbol: 'UPTO' }, { 'x-wallet-address': creator.address }, payingFetch(creator));
  expect(res.status).toBe(201);
  tokenId = (await json(res)).data.tokenId;
});
afterAll(async () => {
  await service.stop();
});

function post(path: string, body: unknown, headers: Record<string, string> = {}, f: typeof fetch = fetch) {
  return f(`${service.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
}

const isUsdcUpto = (a: { scheme: string; asset: string }) => a.scheme === 'upto' && a.asset.toLowerCase() === USDC.toLowerCase();

/** The official @x402/fetch client paying by the official upto client, its selector picking the USDC upto offer. */
function uptoFetch(account = payer) {
  return wrapFetchWithPaymentFromConfig(fetch, {
    schemes: [{ network: 'eip155:*', client: new UptoEvmScheme(account) }],
    spendControls: false,
    paymentRequirementsSelector: (_version, accepts) => accepts.find(isUsdcUpto) ?? accepts[0]!,
  });
}

/** token_buy_tokens' 402 as `account` is asked it: the PaymentRequired object of its header, and the body's. */
async function asked(body: Record<string, unknown>, account = payer) {
  const res = await post('/entrypoints/token_buy_tokens', body, { 'x-wallet-address': account.address });
  expect(res.status).toBe(402);
  return { header: decodeBase64Json<any>(res.headers.get('payment-required')), body: (await json(res)).error.details };
}

/** A PAYMENT-SIGNATURE the official upto client signs for `requirements` (the 402's upto offer, or one changed). */
async function signed(requirements: PaymentRequirements, resource: unknown, account = payer): Promise<string> {
  const { payload } = await new UptoEvmScheme(account).createPaymentPayload(2, requirements);
  return encodePaymentSignatureHeader({ x402Version: 2, accepted: requirements, resource, payload } as never);
}

async function paidWith(body: Record<string, unknown>, header: string) {
  const res = await post('/entrypoints/token_buy_tokens', body, { 'payment-signature': header });
  return { status: res.status, body: await json(res), response: res.headers.get('payment-response') };
}

const paymentsOf = (wallet: string) => [...uow.db.payments.values()].filter((p) => p.payer === wallet);

describe('upto: the offer', () => {
  it('token_buy_tokens offers upto after exact and batch-settlement: the price plus the default slippage, the official extra, the EIP-2612 gas sponsoring declared', async () => {
    const { header, body } = await asked({ tokenId, tokens: '1000001' });
    const accepts = header.accepts as PaymentRequirements[];
    expect(accepts.map((a) => a.scheme)).toEqual(['exact', 'exact', 'batch-settlement', 'batch-settlement', 'upto', 'upto']);
    const [exactUsdc, exactEurc] = accepts;
    const [uptoUsdc, uptoEurc] = accepts.slice(4);
    // 1 % over the price (DEFAULT_SLIPPAGE_BPS), rounded down, in each asset.
    expect(BigInt(uptoUsdc!.amount)).toBe(BigInt(exactUsdc!.amount) + (BigInt(exactUsdc!.amount) * 100n) / 10_000n);
    expect(BigInt(uptoEurc!.amount)).toBeGreaterThan(BigInt(exactEurc!.amount));
    expect(uptoUsdc).toEqual({
      ...exactUsdc,
      scheme: 'upto',
      amount: uptoUsdc!.amount,
      extra: { ...exactUsdc!.extra, assetTransferMethod: 'permit2', facilitatorAddress: TREASURY },
    });
    // The header carries the declaration a client acts on; the body its JSON Schema too.
    expect(header.extensions.eip2612GasSponsoring).toEqual({ info: { description: expect.any(String), version: '1' } });
    expect(body.extensions.eip2612GasSponsoring.schema.required).toContain('signature');
  });

  it('never above the buyer’s maxUsd; an operation whose price is exact offers no upto and declares no gas sponsoring', async () => {
    const { header } = await asked({ tokenId, tokens: '1000002' });
    const price = BigInt(header.accepts[0].amount);
    const capped = await asked({ tokenId, tokens: '1000002', maxUsd: ((Number(price) + 1) / 1e6).toFixed(6) });
    expect(capped.header.accepts.find(isUsdcUpto).amount).toBe((price + 1n).toString());
    const info = await post('/entrypoints/token_info', { tokenId }, { 'x-wallet-address': payer.address });
    const required = decodeBase64Json<any>(info.headers.get('payment-required'));
    expect(required.accepts.some((a: any) => a.scheme === 'upto')).toBe(false);
    expect(required.extensions.eip2612GasSponsoring).toBeUndefined();
  });
});

describe('upto: paid by the official client', () => {
  it('buys by tokens and is charged the trade’s price, below its signed maximum; the payment records what moved', async () => {
    const before = facilitator.balanceOf(TESTNET, payer.address);
    const treasuryBefore = facilitator.balanceOf(TESTNET, TREASURY);
    const { header } = await asked({ tokenId, tokens: '2000000' });
    const maximum = BigInt(header.accepts.find(isUsdcUpto).amount);
    const res = await post('/entrypoints/token_buy_tokens', { tokenId, tokens: '2000000' }, { 'x-wallet-address': payer.address }, uptoFetch());
    expect(res.status, await res.clone().text()).toBe(200);
    const data = (await json(res)).data;
    const settlement = decodeBase64Json<any>(res.headers.get('payment-response'));
    expect(settlement).toMatchObject({ success: true, network: TESTNET, payer: payer.address });
    const charged = BigInt(settlement.amount);
    expect(charged).toBe(parseUsd(data.usdSpent)); // USDC 1:1: the trade's price
    expect(charged).toBeLessThan(maximum);
    expect(before - facilitator.balanceOf(TESTNET, payer.address)).toBe(charged);
    expect(facilitator.balanceOf(TESTNET, TREASURY) - treasuryBefore).toBe(charged);
    expect(parseTokens(data.tokensReceived)).toBeGreaterThanOrEqual(parseTokens('2000000'));
    // The trade and the position are booked; the payment is the upto transfer, its amount what moved.
    const payment = uow.db.payments.get(data.payment.paymentId)!;
    expect(payment).toMatchObject({ scheme: 'upto', state: 'APPLIED', asset: 'USDC', amount: charged, usdValue: charged, settlementTx: settlement.transaction });
    expect(payment.nonce).toMatch(/^0x[0-9a-f]{64}$/);
    expect(uow.db.trades.filter((t) => t.paymentId === payment.paymentId)).toHaveLength(1);
    expect(facilitator.upto.transfers.at(-1)).toMatchObject({ from: payer.address, to: TREASURY, amount: charged, nonce: payment.nonce });
    const read = await json(await fetch(`${service.url}/api/payments/${payment.paymentId}`));
    expect(read.data).toMatchObject({ state: 'APPLIED', asset: 'USDC', amount: data.usdSpent });
  });

  it('a signed maximum below the price, or above the offer: 402 with the reason and the fresh offers, nothing charged', async () => {
    const body = { tokenId, tokens: '1000004' };
    const { header } = await asked(body);
    const offer = header.accepts.find(isUsdcUpto);
    const price = BigInt(header.accepts[0].amount);
    const before = facilitator.balanceOf(TESTNET, payer.address);
    for (const [amount, reason] of [
      [price - 1n, 'upto_maximum_below_price'],
      [BigInt(offer.amount) + 1n, 'upto_maximum_above_offer'],
    ] as const) {
      const answer = await paidWith(body, await signed({ ...offer, amount: amount.toString() }, header.resource));
      expect(answer.status, reason).toBe(402);
      expect(answer.body.error).toMatchObject({ code: 'PAYMENT_INVALID', details: { reason } });
      expect(answer.body.error.details.paymentRequired.accepts.some(isUsdcUpto)).toBe(true);
    }
    // A maximum of exactly the price pays.
    const exactly = await paidWith(body, await signed({ ...offer, amount: price.toString() }, header.resource));
    expect(exactly.status).toBe(200);
    expect(before - facilitator.balanceOf(TESTNET, payer.address)).toBe(price);
  });

  it('a transfer to another recipient, settled by another account or through another spender is refused before the facilitator is asked', async () => {
    const body = { tokenId, tokens: '1000005' };
    const { header } = await asked(body);
    const offer = header.accepts.find(isUsdcUpto);
    const other = devAccount(5).address;
    const throughAnother = async () => {
      const { payload } = await new UptoEvmScheme(payer).createPaymentPayload(2, offer);
      const tampered = { ...payload, permit2Authorization: { ...(payload as any).permit2Authorization, spender: other } };
      return encodePaymentSignatureHeader({ x402Version: 2, accepted: offer, resource: header.resource, payload: tampered } as never);
    };
    const verified = facilitator.verifyCalls;
    for (const [reason, payment] of [
      ['requirements_mismatch', await signed({ ...offer, payTo: other }, header.resource)], // the witness pays another wallet
      ['authorization_mismatch', await signed({ ...offer, extra: { ...offer.extra, facilitatorAddress: other } }, header.resource)], // another account may settle it
      ['authorization_mismatch', await throughAnother()],
    ] as const) {
      const answer = await paidWith(body, payment);
      expect(answer.status, reason).toBe(402);
      expect(answer.body.error.details.reason, reason).toBe(reason);
    }
    expect(facilitator.verifyCalls).toBe(verified);
  });

  it('an operation whose price is exact takes no upto payment', async () => {
    const { header } = await asked({ tokenId, tokens: '1000009' });
    const info = await post('/entrypoints/token_info', { tokenId }, { 'x-wallet-address': payer.address });
    const resource = decodeBase64Json<any>(info.headers.get('payment-required')).resource;
    const offer = header.accepts.find(isUsdcUpto);
    const res = await post('/entrypoints/token_info', { tokenId }, { 'payment-signature': await signed({ ...offer, amount: '1000' }, resource) });
    expect(res.status).toBe(402);
    expect((await json(res)).error.details.reason).toBe('requirements_mismatch');
  });

  it('the same payment again gets the stored answer and is charged once', async () => {
    const body = { tokenId, tokens: '1000006' };
    const { header } = await asked(body);
    const payment = await signed(header.accepts.find(isUsdcUpto), header.resource);
    const before = facilitator.balanceOf(TESTNET, payer.address);
    const settledBefore = facilitator.settled.length;
    const first = await paidWith(body, payment);
    expect(first.status).toBe(200);
    const again = await paidWith(body, payment);
    expect(again.status).toBe(200);
    expect(again.body).toEqual(first.body);
    expect(again.response).toBe(first.response);
    expect(facilitator.settled.length - settledBefore).toBe(1);
    expect(before - facilitator.balanceOf(TESTNET, payer.address)).toBe(BigInt(decodeBase64Json<any>(first.response).amount));
  });

  it('a buy refused after its payment settled is paid back by a payout of what was charged', async () => {
    const buyer = devAccount(9);
    const body = { tokenId, tokens: '1000007' };
    const { header } = await asked(body, buyer);
    const payment = await signed(header.accepts.find(isUsdcUpto), header.resource, buyer);
    // After this payment settles and before it applies, a whale buy moves the price past what it pays for.
    afterSettle = async () => {
      const whale = await post('/entrypoints/token_buy_usd', { tokenId, usdAmount: '1000' }, { 'x-wallet-address': creator.address }, payingFetch(creator));
      if (whale.status !== 200) throw new Error(JSON.stringify(await json(whale)));
    };
    const answer = await paidWith(body, payment);
    expect(answer.status).toBe(409);
    expect(answer.body.error.code).toBe('SLIPPAGE_EXCEEDED');
    const refunded = uow.db.payments.get(answer.body.error.details.paymentId)!;
    expect(refunded).toMatchObject({ scheme: 'upto', state: 'REFUNDED' });
    const payouts = [...uow.db.payouts.values()].filter((p) => p.sourceId === refunded.paymentId);
    expect(payouts).toHaveLength(1);
    expect(payouts[0]).toMatchObject({ reason: 'refund', asset: 'USDC', amount: refunded.amount, wallet: buyer.address });
    expect(refunded.amount).toBe(BigInt(header.accepts[0].amount));
  });
});

describe('upto: a settlement whose outcome is unknown', () => {
  /** A payment of the USDC upto offer whose settlement times out; `transfers`: the transfer happens anyway. */
  async function timedOut(account: ReturnType<typeof devAccount>, transfers: boolean) {
    const body = { tokenId, tokens: '1000008' };
    const { header } = await asked(body, account);
    const payment = await signed(header.accepts.find(isUsdcUpto), header.resource, account);
    facilitator.timeoutNextSettle({ transfers });
    const answer = await paidWith(body, payment);
    expect(answer.status).toBe(202);
    const pending = paymentsOf(account.address).find((p) => p.state === 'SETTLING')!;
    expect(pending.scheme).toBe('upto');
    return { body, payment, pending };
  }

  async function reconcile() {
    clock.offsetMs += 31_000; // past the reconciler's grace
    try {
      await service.runWorkers();
    } finally {
      clock.offsetMs -= 31_000;
    }
  }

  it('is applied once the chain shows the settlement that spent its Permit2 nonce; the same payment again gets that answer', async () => {
    const account = devAccount(6);
    const before = facilitator.balanceOf(TESTNET, account.address);
    const { body, payment, pending } = await timedOut(account, true);
    expect(await facilitator.permit2Transfer(TESTNET, { owner: account.address, nonce: pending.nonce, to: TREASURY, amount: pending.amount })).toMatchObject({ state: 'used' });
    await reconcile();
    const done = uow.db.payments.get(pending.paymentId)!;
    expect(done).toMatchObject({ state: 'APPLIED', settlementTx: facilitator.upto.transfers.at(-1)!.transaction });
    expect(uow.db.trades.filter((t) => t.paymentId === done.paymentId)).toHaveLength(1);
    expect(before - facilitator.balanceOf(TESTNET, account.address)).toBe(done.amount);
    // The same payment again: the reconciler's answer, nothing charged twice.
    const again = await paidWith(body, payment);
    expect(again.status).toBe(200);
    expect(before - facilitator.balanceOf(TESTNET, account.address)).toBe(done.amount);
  });

  it('a nonce its owner spent otherwise pays nothing: FAILED, never applied', async () => {
    const account = devAccount(5);
    const before = facilitator.balanceOf(TESTNET, account.address);
    const { pending } = await timedOut(account, false);
    await reconcile();
    expect(uow.db.payments.get(pending.paymentId)!.state).toBe('SETTLING'); // unspent and still usable: it may yet be mined
    facilitator.upto.spend(TESTNET, account.address, pending.nonce);
    await reconcile();
    expect(uow.db.payments.get(pending.paymentId)!.state).toBe('FAILED');
    expect(uow.db.trades.filter((t) => t.paymentId === pending.paymentId)).toHaveLength(0);
    expect(facilitator.balanceOf(TESTNET, account.address)).toBe(before);
  });

  it('safety net: a closed upto payment whose transfer is found settled after all is refunded; one whose nonce was spent otherwise is not', async () => {
    const account = privateKeyToAccount(generatePrivateKey());
    const { header } = await asked({ tokenId, tokens: '1000010' }, account);
    const offer = header.accepts.find(isUsdcUpto);
    const closed = async (amount: bigint) => {
      const { payload } = await new UptoEvmScheme(account).createPaymentPayload(2, offer);
      const nonce = `0x${BigInt((payload as any).permit2Authorization.nonce).toString(16).padStart(64, '0')}`;
      const now = clock.now();
      const p = payment({ payer: account.address, nonce, scheme: 'upto', amount, usdValue: amount, resource: 'token_buy_tokens', state: 'REJECTED', createdAt: now, updatedAt: now });
      await uow.run((s) => s.payments.claim(p));
      return { p, paid: { x402Version: 2, accepted: offer, payload: payload as Record<string, unknown> } };
    };
    const settledAnyway = await closed(5_000n);
    const spentOtherwise = await closed(6_000n);
    // A bug, say, settles the first; the payer spends the second's nonce on a transfer of its own.
    expect((await facilitator.settle(settledAnyway.paid, { ...offer, amount: '5000' })).success).toBe(true);
    facilitator.upto.spend(TESTNET, account.address, spentOtherwise.p.nonce);
    clock.offsetMs += 91_000; // past the grace, and past the safety net's pause after a sweep
    try {
      await service.runWorkers();
    } finally {
      clock.offsetMs -= 91_000;
    }
    expect(uow.db.payments.get(settledAnyway.p.paymentId)!.state).toBe('REFUNDED');
    expect([...uow.db.payouts.values()].filter((o) => o.sourceId === settledAnyway.p.paymentId)).toMatchObject([{ reason: 'refund', amount: 5_000n, wallet: account.address }]);
    expect(uow.db.payments.get(spentOtherwise.p.paymentId)!.state).toBe('REJECTED');
  });
});
