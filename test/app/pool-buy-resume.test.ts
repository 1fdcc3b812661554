/**
 * A paid buy on a graduated token's pool, refused or interrupted off its happy path (decision
 * 0059): nothing may refund it while its swap can still move the USDC.
 *
 * - Refused, or met by an outage, before its swap moved anything (the pool's RPC at the swap's
 *   check): refunded only once its refusal is recorded in the swap's place — a slower copy of
 *   the buy then sends no swap after the refund.
 * - Refunded any other way (the reconciler): nothing custody has not recorded is sent after.
 * - Met by an outage once the swap is mined (the booking's database): no refusal — 202, and
 *   the buy is booked once later.
 * - The reconciler checks a payment's quote, or its held price, as of when it was paid: a swap
 *   pending past the quote's minute is applied when it is mined, not refunded.
 * - A buy whose swap custody recorded is that swap (decision 0061): the reconciler books it at
 *   the terms recorded with it — its gross, and as our fee what the swap left — without pricing
 *   the buy again, so a quote purged, a held price gone, a rule changed or a fee decayed since
 *   neither refunds a swapped buy nor books another fee than the one custody kept.
 */
import { describe, expect, it } from 'vitest';
import { FakeDexRouter } from '../../src/adapters/dex/fake/fake-dex-router.js';
import { UniswapV2TradeQuoter } from '../../src/adapters/quotes/uniswap-v2/uniswap-v2-trade-quoter.js';
import { answerIntents } from '../../src/app/custody/custody-intents.js';
import { entrypoints } from '../../src/app/catalogue.js';
import { type AnyEntrypoint } from '../../src/app/kit/catalogue/entrypoint.js';
import { refund, resumeApplication } from '../../src/app/payments/pipeline/application.js';
import { createQuote } from '../../src/app/trading/create-quote.js';
import { buyToken, planBuy } from '../../src/app/trading/buy-token.js';
import { createToken } from '../../src/app/tokens/create-token.js';
import { GraduationWorker } from '../../src/app/workers/graduation-worker.js';
import { PaymentReconciler } from '../../src/app/workers/payment-reconciler.js';
import { ServiceUnavailable } from '../../src/domain/errors.js';
import { parseTokens, parseUsd } from '../../src/domain/money.js';
import { TESTNET } from '../../src/domain/network.js';
import { validateTokenMetadata } from '../../src/domain/token.js';
import { isNotSent } from '../../src/ports/custody-transaction-store.js';
import type { PipelineDeps } from '../../src/app/payments/pipeline/deps.js';
import { makeDeps, WALLET_A, WALLET_B } from '../support/app-harness.js';
import { settledPayment } from '../support/settled-payment.js';
import { settleTokens } from '../support/onchain.js';

const errors: string[] = [];
const logger = { debug() {}, info() {}, warn() {}, error: (m: string) => void errors.push(m) };
const metrics = { increment() {}, observe() {}, set() {} };

async function pooled(settings: Parameters<typeof makeDeps>[0] = {}) {
  const deps = makeDeps({ maxBuyUsd: parseUsd('20000'), pullWaitMs: 0, ...settings });
  const dex = new FakeDexRouter({ clock: deps.clock });
  const created = await createToken(deps, { metadata: validateTokenMetadata({ name: 'Moon', symbol: 'MOON' }), creator: WALLET_A, network: TESTNET });
  const plan = await planBuy(deps, { kind: 'tokens', tokenId: created.tokenId, tokens: parseTokens('793100000') }, TESTNET);
  await buyToken(deps, { plan, buyer: WALLET_A, network: TESTNET });
  await settleTokens(deps);
  const silent = { debug() {}, info() {}, warn() {}, error() {} };
  const graduation = new GraduationWorker({ uow: deps.uow, clock: deps.clock, ids: deps.ids, logger: silent, dex, maxAttempts: 5, backoffBaseMs: 0, backoffMaxMs: 0, confirmPollMs: 0, stuckAfterMs: 60_000 });
  for (let i = 0; i < 20 && (await graduation.runOnce()) > 0; i++);
  const app = { ...deps, poolQuoter: new UniswapV2TradeQuoter(dex), dex, logger, metrics, receiptSigner: null } as unknown as PipelineDeps & typeof deps;
  errors.length = 0;
  return { deps, dex, app, tokenId: created.tokenId };
}

const entrypoint = (name: string) => entrypoints().find((e) => e.name === name)! as AnyEntrypoint;

/** Right after the next swap is mined (its outcome read), the booking's transaction meets the database gone. */
function outageAtBooking(deps: ReturnType<typeof makeDeps>, dex: FakeDexRouter): void {
  const transaction = deps.uow.transaction.bind(deps.uow);
  const outcome = dex.swapOutcome.bind(dex);
  dex.swapOutcome = async (...args) => {
    deps.uow.transaction = async () => {
      deps.uow.transaction = transaction;
      throw new ServiceUnavailable('The database is unavailable.');
    };
    dex.swapOutcome = outcome;
    return outcome(...args);
  };
}

const refunds = (deps: ReturnType<typeof makeDeps>) => [...deps.uow.db.payouts.values()].filter((p) => p.reason === 'refund');
const poolTrades = (deps: ReturnType<typeof makeDeps>) => deps.uow.db.trades.filter((t) => t.venue === 'uniswap-v2');

/** The buy's slower copy (`request`), after its refund: answered the refund, no swap broadcast, nothing booked. */
async function expectNothingSwappedAfter(deps: ReturnType<typeof makeDeps>, dex: FakeDexRouter, request: () => Promise<{ kind: string }>, stateOf: () => Promise<{ state: string }>) {
  const sent = dex.broadcasts;
  expect((await request()).kind).toBe('replayed');
  expect(dex.broadcasts).toBe(sent);
  expect((await stateOf()).state).toBe('REFUNDED');
  expect(poolTrades(deps)).toEqual([]);
}

describe('a paid pool buy off its happy path (decision 0059)', () => {
  it('an outage at its swap’s check is refunded only with its refusal recorded: a slower copy sends no swap after the refund', async () => {
    const { deps, dex, app, tokenId } = await pooled();
    const { payment, request, stateOf } = await settledPayment(app, entrypoint('token_buy_usd'), { tokenId, usdAmount: '10' });
    const reserves = dex.reserves.bind(dex);
    dex.reserves = async () => Promise.reject(new Error('rpc down'));
    const refused = await request();
    dex.reserves = reserves;
    expect(refused).toMatchObject({ kind: 'refunded', response: { status: 503 } });
    // Recorded with what it said (decision 0063).
    expect(await deps.uow.run((s) => s.swaps.get(payment.paymentId))).toMatchObject({ notSent: true, refusal: { code: 'SERVICE_UNAVAILABLE', message: 'The pool could not be read; try again shortly.' } });

    // The request's own copy, slower than the reconciler's grace, passes the check a moment later.
    await expectNothingSwappedAfter(deps, dex, request, stateOf);
    expect(refunds(deps)).toHaveLength(1);
  });

  it('a refund fences custody: a copy of the buy that comes after it (a custody intent answered late, a slow request) sends no swap', async () => {
    const { deps, dex, app, tokenId } = await pooled();
    const { payment, request, stateOf } = await settledPayment(app, entrypoint('token_buy_usd'), { tokenId, usdAmount: '10' });
    // Refunded with nothing recorded for it (the reconciler's give-up, a re-check that refused).
    await refund(app, payment, new ServiceUnavailable('The operation could not be applied; the payment is refunded.', 5));
    expect(await deps.uow.run((s) => s.swaps.get(payment.paymentId))).toMatchObject({ notSent: true });
    await expectNothingSwappedAfter(deps, dex, request, stateOf);
  });

  it('an outage once its swap is mined (the booking’s database) is no refusal: 202, then booked once, nothing refunded', async () => {
    const { deps, dex, app, tokenId } = await pooled();
    const { payment, request, stateOf } = await settledPayment(app, entrypoint('token_buy_usd'), { tokenId, usdAmount: '10' });
    // Right after the swap is mined (its outcome read), the booking's transaction meets the database gone.
    outageAtBooking(deps, dex);
    expect((await request()).kind).toBe('pending');
    expect((await stateOf()).state).toBe('SETTLED');
    const swap = await deps.uow.run((s) => s.swaps.get(payment.paymentId));
    expect((await request()).kind).toBe('applied');
    expect(await deps.uow.run((s) => s.swaps.get(payment.paymentId))).toEqual(swap); // the same swap, followed: none signed again
    expect(poolTrades(deps)).toHaveLength(1);
    expect(refunds(deps)).toEqual([]);
  });

  it.each([
    ['token_buy_quote', 'quote'],
    ['token_buy_tokens', 'held price'],
  ])('%s: a swap pending past its %s’s minute is applied when the reconciler finds it mined, not refunded', async (name) => {
    const { deps, dex, app, tokenId } = await pooled();
    const raw = name === 'token_buy_quote' ? { quoteId: (await createQuote(app, { tokenId, side: 'buy', usdAmount: parseUsd('10'), slippageBps: 100n })).quoteId } : { tokenId, tokens: '1000000' };
    const { payment, request, stateOf } = await settledPayment(app, entrypoint(name), raw);
    dex.scriptNext('hold');
    expect((await request()).kind).toBe('pending'); // 202: the swap is not mined yet
    const swap = await deps.uow.run((s) => s.swaps.get(payment.paymentId));
    expect(swap && !isNotSent(swap)).toBe(true);

    await dex.unblock(TESTNET);
    deps.clock.advance(61_000); // the quote (or the held price) has expired since
    const resumed = await resumeApplication(app, entrypoint(name), await stateOf());
    expect(resumed.kind).toBe('applied');
    expect((await stateOf()).state).toBe('APPLIED');
    expect(poolTrades(deps)).toHaveLength(1);
    expect(refunds(deps)).toEqual([]);
  });

  /** A paid buy whose swap is signed, recorded and held unmined: its request answered 202. */
  async function swapPending(name: 'token_buy_usd' | 'token_buy_quote' | 'token_buy_tokens', whileHeld?: (app: PipelineDeps, tokenId: string) => Promise<unknown>) {
    const setup = await pooled();
    const { deps, dex, app, tokenId } = setup;
    const raw =
      name === 'token_buy_quote'
        ? { quoteId: (await createQuote(app, { tokenId, side: 'buy', usdAmount: parseUsd('10'), slippageBps: 100n })).quoteId }
        : name === 'token_buy_tokens'
          ? { tokenId, tokens: '1000000' }
          : { tokenId, usdAmount: '10' };
    const paid = await settledPayment(app, entrypoint(name), raw);
    dex.scriptNext('hold');
    expect((await paid.request()).kind).toBe('pending');
    const swap = (await deps.uow.run((s) => s.swaps.get(paid.payment.paymentId)))!;
    if (isNotSent(swap)) throw new Error('no swap recorded');
    expect(swap.buy).toEqual({ grossUsd: paid.payment.amount, amountIn: expect.any(BigInt), minTokensOut: expect.any(BigInt) });
    await whileHeld?.(app, tokenId);
    await dex.unblock(TESTNET);
    return { ...setup, ...paid, swap };
  }

  type Deps = ReturnType<typeof makeDeps>;
  it.each([
    ['token_buy_quote', 'its quote purged', (deps: Deps): void => deps.uow.db.quotes.clear()],
    ['token_buy_tokens', 'its held price gone', (deps: Deps): void => (deps.uow.db.quotes.clear(), deps.uow.db.heldQuotes.clear())],
    ['token_buy_usd', 'the maximum buy lowered below it', (deps: Deps): void => void ((deps.settings as { maxBuyUsd: bigint }).maxBuyUsd = parseUsd('1'))],
  ] as const)('%s, %s before the reconciler comes back: its recorded swap is booked, nothing refunded', async (name, _what, change) => {
    const { deps, app, payment, stateOf } = await swapPending(name);
    change(deps);
    deps.clock.advance(11 * 60_000);
    const resumed = await resumeApplication(app, entrypoint(name), await stateOf());
    expect(resumed.kind).toBe('applied');
    expect((await stateOf()).state).toBe('APPLIED');
    expect(poolTrades(deps)).toHaveLength(1);
    expect(poolTrades(deps)[0]!.usdAmount).toBe(payment.amount);
    expect(refunds(deps)).toEqual([]);
  });

  it('a fee changed between the swap’s signature and its booking: booked at what the swap left, the fee custody kept', async () => {
    const { deps, dex, app, payment, stateOf, swap, tokenId } = await swapPending('token_buy_usd');
    const outcome = (await dex.swapOutcome(TESTNET, swap.txHash))!;
    const kept = payment.amount - outcome.amountIn;
    expect(kept).toBeGreaterThan(0n);
    const token = deps.uow.db.tokens.get(tokenId)!;
    deps.uow.db.tokens.set(tokenId, { ...token, params: { ...token.params, feeBps: 0n } });
    const resumed = await resumeApplication(app, entrypoint('token_buy_usd'), await stateOf());
    expect(resumed.kind).toBe('applied');
    expect(poolTrades(deps)).toMatchObject([{ usdAmount: payment.amount, feeUsd: kept, tokenAmount: outcome.amountOut }]);
  });

  it('booked from what custody signed, not from the Swap event: what else sat unsynced in the pair (a donation) counts there as input', async () => {
    const { deps, dex, app, tokenId } = await pooled();
    const { payment, request } = await settledPayment(app, entrypoint('token_buy_usd'), { tokenId, usdAmount: '10' });
    const outcome = dex.swapOutcome.bind(dex);
    dex.swapOutcome = async (...args) => {
      const o = (await outcome(...args))!;
      return { ...o, amountIn: o.amountIn + 10n ** 12n }; // a speck of the token donated to the pair
    };
    expect((await request()).kind).toBe('applied');
    const swap = (await deps.uow.run((s) => s.swaps.get(payment.paymentId)))!;
    if (isNotSent(swap) || !swap.buy) throw new Error('no swap terms recorded');
    expect(poolTrades(deps)).toMatchObject([{ usdAmount: payment.amount, feeUsd: payment.amount - swap.buy.amountIn }]);
  });

  it('a re-check that refuses just after the reconciler found no swap, one recorded meanwhile by a slow copy, refunds nothing: 202, booked later', async () => {
    const { deps, dex, app, tokenId } = await pooled();
    const { payment, request, stateOf } = await settledPayment(app, entrypoint('token_buy_usd'), { tokenId, usdAmount: '10' });
    // The request's swap is mined; its booking meets an outage: 202, SETTLED, the swap recorded.
    outageAtBooking(deps, dex);
    expect((await request()).kind).toBe('pending');
    // A rule changed (a restart), and the reconciler looked for the swap — to plan from it, and
    // again before its refund's transaction — just before it was recorded: only the refund's
    // transaction, where it records its refusal in the swap's place, meets it.
    (deps.settings as { maxBuyUsd: bigint }).maxBuyUsd = parseUsd('1');
    const swaps = deps.uow.db.swaps;
    const get = swaps.get.bind(swaps);
    let hidden = 2;
    swaps.get = () => {
      if (--hidden === 0) swaps.get = get;
      return undefined;
    };
    const resumed = await resumeApplication(app, entrypoint('token_buy_usd'), await stateOf());
    expect(hidden).toBe(0);
    expect(resumed.kind).toBe('pending');
    expect((await stateOf()).state).toBe('SETTLED');
    expect(refunds(deps)).toEqual([]);
    // The next pass finds the swap: booked at its terms.
    expect((await resumeApplication(app, entrypoint('token_buy_usd'), await stateOf())).kind).toBe('applied');
    expect(poolTrades(deps)).toMatchObject([{ usdAmount: payment.amount }]);
    expect(refunds(deps)).toEqual([]);
  });

  it('a swap recorded but reverted on chain is no purchase: the re-check’s refusal stands and the buy is refunded once', async () => {
    // A large buy moves the pool past the held swap's bound before it is mined: it reverts.
    const { deps, dex, app, stateOf, swap, payment } = await swapPending('token_buy_quote', async (app, tokenId) => {
      const plan = await planBuy(app, { kind: 'usd', tokenId, usdAmount: parseUsd('5000') }, TESTNET);
      await buyToken(app, { plan, buyer: WALLET_B, network: TESTNET });
    });
    expect(await dex.status(TESTNET, swap.txHash, swap.rawTx)).toBe('reverted');
    deps.uow.db.quotes.clear();
    const resumed = await resumeApplication(app, entrypoint('token_buy_quote'), await stateOf());
    expect(resumed).toMatchObject({ kind: 'refunded', response: { status: 409 } });
    expect(poolTrades(deps).filter((t) => t.paymentId === payment.paymentId)).toEqual([]);
    expect(refunds(deps)).toHaveLength(1);
  });

  it('a swap asked of custody’s signer by another process is recorded with its buy’s terms, and booked at them', async () => {
    const { deps, app, tokenId } = await pooled();
    const asker = { ...app, custody: { signing: () => false } } as typeof app;
    const { payment, stateOf } = await settledPayment(asker, entrypoint('token_buy_usd'), { tokenId, usdAmount: '10' });
    // The asker waits no longer than its (zero) pull wait: 202 until the signer answers.
    const asked = await resumeApplication(asker, entrypoint('token_buy_usd'), await stateOf());
    expect(asked.kind).toBe('pending');
    expect(await answerIntents(app)).toBe(1);
    const swap = await deps.uow.run((s) => s.swaps.get(payment.paymentId));
    expect(swap).toMatchObject({ buy: { grossUsd: payment.amount } });
    expect((await resumeApplication(asker, entrypoint('token_buy_usd'), await stateOf())).kind).toBe('applied');
    expect(poolTrades(deps)).toMatchObject([{ usdAmount: payment.amount }]);
  });

  it('the reconciler’s give-up never refunds a buy whose swap custody sent and that did not revert: left for an operator, behind the others', async () => {
    const { deps, dex, app, tokenId } = await pooled();
    const { payment, request, stateOf } = await settledPayment(app, entrypoint('token_buy_usd'), { tokenId, usdAmount: '10' });
    dex.scriptNext('hold'); // sent, never mined while the reconciler looks
    expect((await request()).kind).toBe('pending');
    const counted: string[] = [];
    const chain = { authorization: () => Promise.reject(new Error('not asked for a SETTLED payment')) };
    const reconciler = new PaymentReconciler({
      ...app,
      metrics: { ...metrics, increment: (name: string) => void counted.push(name) },
      entrypoints: new Map([['token_buy_usd', entrypoint('token_buy_usd')]]),
      chain,
      graceMs: 30_000,
      refundAfterMs: 15 * 60_000,
    } as unknown as ConstructorParameters<typeof PaymentReconciler>[0]);
    deps.clock.advance(16 * 60_000);
    expect(await reconciler.runOnce()).toBe(0);
    const after = await stateOf();
    expect(after.state).toBe('SETTLED');
    expect(after.updatedAt).toEqual(deps.clock.now()); // to the back of the batch, its give-up clock started over
    expect(refunds(deps)).toEqual([]);
    expect(counted).toContain('payments_stuck_in_custody_total');
    expect(errors.some((m) => /an operator must finish it/.test(m))).toBe(true);

    // Mined at last — past its 5-minute deadline, so reverted: nothing moved, and the next pass
    // past the grace refunds it, once.
    const swap = (await deps.uow.run((s) => s.swaps.get(payment.paymentId)))!;
    await dex.unblock(TESTNET);
    expect(isNotSent(swap) ? null : await dex.status(TESTNET, swap.txHash, swap.rawTx)).toBe('reverted');
    deps.clock.advance(31_000);
    expect(await reconciler.runOnce()).toBe(1);
    expect((await stateOf()).state).toBe('REFUNDED');
    expect(poolTrades(deps)).toEqual([]);
    expect(refunds(deps)).toHaveLength(1);
  });
});
