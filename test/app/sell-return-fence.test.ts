/**
 * A paid sell refused once its tokens are pulled sends them back with the fee's refund, in one
 * transaction behind the payment's compare-and-set (decision 0058). The race it closes: a request
 * slower than the reconciler's grace, whose payment the reconciler applies meanwhile (the same
 * pull, sold on the curve); the request's own copy, refused then because the first copy moved the
 * price past its minUsdOut, used to queue the tokens back in a transaction of its own — the seller
 * paid for the tokens and sent them too.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeFacilitator } from '../../src/adapters/facilitator/fake/fake-facilitator.js';
import { MemoryUnitOfWork } from '../../src/adapters/persistence/memory/memory-unit-of-work.js';
import { MemoryTokenRepository } from '../../src/adapters/persistence/memory/memory-token-repository.js';
import { FakeTokenIssuer } from '../../src/adapters/token/fake/fake-token-issuer.js';
import { ServiceUnavailable } from '../../src/domain/errors.js';
import type { RunningService } from '../../src/bootstrap/compose.js';
import { TESTNET } from '../../src/domain/network.js';
import type { Payment } from '../../src/domain/payment.js';
import { signedSellBody } from '../support/onchain.js';
import { json, settle, ShiftableClock, startTestService } from '../support/service.js';
import { devAccount, payingFetch } from '../support/x402-client.js';

const seller = devAccount(6);
const clock = new ShiftableClock();
const uow = new MemoryUnitOfWork();
const facilitator = new FakeFacilitator({ clock, defaultBalance: 10_000_000_000n });
const issuer = new FakeTokenIssuer({ clock });
/** The request dies right after its pull is mined, before the trade is written. */
let crashAfterPullMined = false;
/** Right after the pull is mined, the database is unavailable for the trade's transaction. */
let outageAfterPullMined = false;
const tokenIssuer = new Proxy(issuer, {
  get(target, prop, receiver) {
    const value = Reflect.get(target, prop, receiver) as unknown;
    if (prop !== 'status' || typeof value !== 'function') return typeof value === 'function' ? value.bind(target) : value;
    return async (...args: unknown[]) => {
      const status = await (value as (...a: unknown[]) => Promise<string>).apply(target, args);
      if (status === 'confirmed' && crashAfterPullMined) {
        crashAfterPullMined = false;
        throw new Error('simulated crash right after the pull was mined');
      }
      if (status === 'confirmed' && outageAfterPullMined) {
        outageAfterPullMined = false;
        // The booking's transaction meets the database gone (mapped to SERVICE_UNAVAILABLE).
        const transaction = uow.transaction.bind(uow);
        uow.transaction = async () => {
          uow.transaction = transaction;
          throw new ServiceUnavailable('The database is unavailable.');
        };
      }
      return status;
    };
  },
});
/** What the next paid request meets right after its settlement was recorded. */
let afterSettle: ((p: Payment) => Promise<void>) | null = null;
let service: RunningService;
let tokenId: string;

beforeAll(async () => {
  service = await startTestService({
    ports: { clock, uow, facilitator, tokenIssuer },
    hooks: {
      afterSettle: async (p) => {
        const f = afterSettle;
        afterSettle = null;
        await f?.(p);
      },
    },
  });
  tokenId = (await json(await post('/tokens', { name: 'Fence', symbol: 'FNCE' }))).data.tokenId;
  expect((await post('/entrypoints/token_buy_usd', { tokenId, usdAmount: '50' })).status).toBe(200);
  await settle(service);
});
afterAll(() => service?.stop());

function post(path: string, body: unknown): Promise<Response> {
  return payingFetch(seller)(`${service.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-wallet-address': seller.address },
    body: JSON.stringify(body),
  });
}

/** The reconciler's pass, past its grace; then the clock back, so later payments are not signed in its past. */
async function reconcile(): Promise<void> {
  const now = clock.offsetMs;
  clock.offsetMs += 31_000;
  await service.runWorkers();
  clock.offsetMs = now;
}

/** A sell of 20,000 tokens that its request leaves pending (202: the flag set before it cut it short); its payment. */
async function pendingSell(): Promise<string> {
  const res = await post('/entrypoints/token_sell', await signedSellBody(service.url, seller, tokenId, '20000'));
  expect(res.status).toBe(202);
  return String((await json(res)).data.paymentId);
}

/** A sell of `tokens` whose minUsdOut is exactly what it gets now: any earlier sell moves it past the bound. */
async function tightSell(tokens: string) {
  const quote = (await json(await fetch(`${service.url}/api/quote?tokenId=${tokenId}&side=sell&tokens=${tokens}&slippageBps=0`))).data;
  return signedSellBody(service.url, seller, tokenId, tokens, { minUsdOut: quote.minUsdOut });
}

/** The sell's call price up by a unit, on the service's own settings (never the defaults other tests share); returns its undo. */
function raiseSellPrice(): () => void {
  const settings = service.application.deps.settings as { prices: typeof service.application.deps.settings.prices };
  const before = settings.prices;
  settings.prices = { ...before, sell: before.sell + 1n };
  return () => void (settings.prices = before);
}

const booksOf = (paymentId: string) => ({
  state: uow.db.payments.get(paymentId)?.state,
  trades: uow.db.trades.filter((t) => t.paymentId === paymentId).length,
  returns: [...uow.db.deliveries.values()].filter((d) => d.sourceId === `return:${paymentId}`).map((d) => d.amount),
  refunds: [...uow.db.payouts.values()].filter((p) => p.sourceId === paymentId && p.reason === 'refund').length,
});

describe('a paid sell refused after its pull (decision 0058)', () => {
  it('that the reconciler applied meanwhile sends nothing back: the slow copy answers what the reconciler stored', async () => {
    let paymentId = '';
    afterSettle = async (p) => {
      paymentId = p.paymentId;
      await reconcile(); // the request is slower than the grace: the reconciler sells first
      expect(uow.db.payments.get(p.paymentId)!.state).toBe('APPLIED');
    };
    const res = await post('/entrypoints/token_sell', await tightSell('100000'));
    expect(res.status).toBe(200);
    expect((await json(res)).data.tokensSold).toBe('100000');
    expect(booksOf(paymentId)).toEqual({ state: 'APPLIED', trades: 1, returns: [], refunds: 0 });
  });

  it('whose request died after the pull and whose price moved meanwhile: the reconciler refunds the fee and sends the tokens back', async () => {
    crashAfterPullMined = true;
    const res = await post('/entrypoints/token_sell', await tightSell('100000'));
    expect(res.status).toBe(202);
    const { paymentId } = (await json(res)).data;
    expect(booksOf(paymentId)).toEqual({ state: 'SETTLED', trades: 0, returns: [], refunds: 0 });
    // Someone else sells: the dead request's bound is now missed.
    expect((await post('/entrypoints/token_sell', await signedSellBody(service.url, seller, tokenId, '5000'))).status).toBe(200);
    await reconcile();
    expect(booksOf(paymentId)).toEqual({ state: 'REFUNDED', trades: 0, returns: [100_000n * 10n ** 18n], refunds: 1 });
  });

  it('that meets an outage with its tokens pulled gives nothing back: it stays SETTLED (202), and the reconciler sells it once', async () => {
    outageAfterPullMined = true;
    const paymentId = await pendingSell();
    expect(booksOf(paymentId)).toEqual({ state: 'SETTLED', trades: 0, returns: [], refunds: 0 });
    await reconcile();
    expect(booksOf(paymentId)).toEqual({ state: 'APPLIED', trades: 1, returns: [], refunds: 0 });
  });

  it('resumed by the reconciler while the database fails its reads is left SETTLED, not refunded, and sold on a later pass', async () => {
    crashAfterPullMined = true;
    const paymentId = await pendingSell();
    const get = MemoryTokenRepository.prototype.get;
    MemoryTokenRepository.prototype.get = async () => {
      throw new ServiceUnavailable('The database is unavailable.');
    };
    try {
      await reconcile();
    } finally {
      MemoryTokenRepository.prototype.get = get;
    }
    expect(booksOf(paymentId)).toEqual({ state: 'SETTLED', trades: 0, returns: [], refunds: 0 });
    await reconcile();
    expect(booksOf(paymentId)).toEqual({ state: 'APPLIED', trades: 1, returns: [], refunds: 0 });
  });

  it('refused on its own sends the tokens back and refunds the fee, together', async () => {
    let paymentId = '';
    afterSettle = async (p) => {
      paymentId = p.paymentId;
      // Someone else sells first: this sell's bound is now missed.
      expect((await post('/entrypoints/token_sell', await signedSellBody(service.url, seller, tokenId, '5000'))).status).toBe(200);
    };
    const res = await post('/entrypoints/token_sell', await tightSell('100000'));
    expect(res.status).toBe(409);
    expect((await json(res)).error.code).toBe('SLIPPAGE_EXCEEDED');
    expect(booksOf(paymentId)).toEqual({ state: 'REFUNDED', trades: 0, returns: [100_000n * 10n ** 18n], refunds: 1 });
  });

  it('whose booking still fails past the reconciler’s give-up, its tokens pulled, is not refunded: left for an operator, sold once it books (decision 0061)', async () => {
    crashAfterPullMined = true;
    const paymentId = await pendingSell();
    const getForUpdate = MemoryTokenRepository.prototype.getForUpdate;
    MemoryTokenRepository.prototype.getForUpdate = async () => {
      throw new Error('a bug in the booking');
    };
    const now = clock.offsetMs;
    try {
      clock.offsetMs = now + 16 * 60_000; // past the 15-minute give-up
      await service.runWorkers();
      expect(booksOf(paymentId)).toEqual({ state: 'SETTLED', trades: 0, returns: [], refunds: 0 });
      MemoryTokenRepository.prototype.getForUpdate = getForUpdate; // fixed
      clock.offsetMs = now + 16 * 60_000 + 31_000; // the next pass past its grace
      await service.runWorkers();
    } finally {
      MemoryTokenRepository.prototype.getForUpdate = getForUpdate;
      clock.offsetMs = now;
    }
    expect(booksOf(paymentId)).toEqual({ state: 'APPLIED', trades: 1, returns: [], refunds: 0 });
  });

  it('whose price changed before the reconciler applied it, its tokens pulled: the fee refunded and the tokens sent back, together (decision 0061)', async () => {
    crashAfterPullMined = true;
    const paymentId = await pendingSell();
    const restore = raiseSellPrice(); // the re-check refuses: the price changed
    try {
      await reconcile();
    } finally {
      restore();
    }
    expect(booksOf(paymentId)).toEqual({ state: 'REFUNDED', trades: 0, returns: [20_000n * 10n ** 18n], refunds: 1 });
  });

  it('whose pull reverted is refunded, nothing sent back: the chain shows the pull moved nothing', async () => {
    let paymentId = '';
    afterSettle = async (p) => {
      paymentId = p.paymentId;
      issuer.scriptNext('reverted');
    };
    const res = await post('/entrypoints/token_sell', await signedSellBody(service.url, seller, tokenId, '20000'));
    expect((await json(res)).error.code).toBe('TOKEN_AUTHORIZATION_INVALID');
    expect(booksOf(paymentId)).toEqual({ state: 'REFUNDED', trades: 0, returns: [], refunds: 1 });
  });

  it('whose pull is not mined yet, refused when applied again (its price changed): nothing sent back, nothing refunded, until the chain decides', async () => {
    let paymentId = '';
    afterSettle = async (p) => {
      paymentId = p.paymentId;
      issuer.scriptNext('hold'); // the pull is sent, and not mined
    };
    const res = await post('/entrypoints/token_sell', await signedSellBody(service.url, seller, tokenId, '20000'));
    expect(res.status).toBe(202);
    const restore = raiseSellPrice();
    try {
      await reconcile();
      expect(booksOf(paymentId)).toEqual({ state: 'SETTLED', trades: 0, returns: [], refunds: 0 });
      // Mined now: the tokens are custody's, and go back with the refund.
      await issuer.unblock(TESTNET);
      await reconcile();
    } finally {
      restore();
    }
    expect(booksOf(paymentId)).toEqual({ state: 'REFUNDED', trades: 0, returns: [20_000n * 10n ** 18n], refunds: 1 });
  });
});
