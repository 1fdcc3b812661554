/** Fair launches (docs/api.md "Fair launches", decision 0048): the raise's rules over fakes, exact to the unit. */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { quoteBuyWithUsd } from '../../src/domain/curve.js';
import { DomainError } from '../../src/domain/errors.js';
import { TESTNET } from '../../src/domain/network.js';
import { splitProRata, transitionRaise, newRaise } from '../../src/domain/raise.js';
import { feeBpsOf, validateTokenMetadata } from '../../src/domain/token.js';
import { stablecoin } from '../../src/app/held/usdc-authorization.js';
import { collectHeld } from '../../src/app/held/collect.js';
import { checkFairLaunch, createToken } from '../../src/app/tokens/create-token.js';
import { planBuy } from '../../src/app/trading/buy-token.js';
import { getRaise } from '../../src/app/raises/get-raise.js';
import { cancelPledge, cancelPledgeMessage, checkPledge, placePledge, pledgeAuthorization } from '../../src/app/raises/pledge.js';
import { settleRaise } from '../../src/app/raises/settle-raise.js';
import { walletPledges } from '../../src/app/raises/wallet-pledges.js';
import { walletBalance } from '../../src/app/trading/wallet-balance.js';
import { RaiseSettler } from '../../src/app/workers/raise-settler.js';
import { MemoryMetrics } from '../../src/adapters/metrics/memory/memory-metrics.js';
import { METRICS } from '../../src/app/kit/metrics.js';
import { makeDeps, WALLET_A, WALLET_B } from '../support/app-harness.js';
import { accountOf, signSell } from '../support/onchain.js';
import { devAccount } from '../support/x402-client.js';
import { randomBytes } from 'node:crypto';
import { MikroOrmUnitOfWork } from '../../src/adapters/persistence/mikro-orm/mikro-orm-unit-of-work.js';
import { dropSchema, POSTGRES_URL } from '../support/postgres.js';
import { describeWithServices } from '../support/services.js';

type Deps = ReturnType<typeof makeDeps>;
const USDC = stablecoin(TESTNET, 'USDC');
const WALLET_C = devAccount(4).address;
const usd = (dollars: number) => BigInt(Math.round(dollars * 1e6));

function withUsdc(deps: Deps): Deps {
  deps.tokenIssuer.addStablecoin(TESTNET, USDC.address, USDC.name, USDC.version);
  for (const w of [WALLET_A, WALLET_B, WALLET_C]) deps.tokenIssuer.mint(TESTNET, USDC.address, w, usd(1000));
  return deps;
}

async function fairToken(deps: Deps, terms: { goal: number; seconds?: number; max?: number } = { goal: 100 }) {
  const fairLaunch = checkFairLaunch(deps, { goalUsd: usd(terms.goal), durationSeconds: terms.seconds ?? 60, maxPerWalletUsd: terms.max === undefined ? null : usd(terms.max) }, null);
  const token = await createToken(deps, { metadata: validateTokenMetadata({ name: 'Fair coin', symbol: 'FAIR' }), creator: WALLET_B, network: TESTNET, fairLaunch });
  return token.tokenId;
}

/** What a wallet signs for a pledge, as GET …/pledge-authorization serves it (`over`: a tampered field). */
async function signedPledge(deps: Deps, tokenId: string, wallet: string, amount: bigint, over: Record<string, bigint | string> = {}) {
  const served = await pledgeAuthorization(deps, { tokenId, wallet, usdAmount: amount });
  const a = served.authorization;
  return signSell({
    wallet,
    token: { network: TESTNET, ...USDC },
    custody: a.to,
    tokens: amount,
    now: deps.clock.now(),
    over: { validAfter: BigInt(a.validAfter), validBefore: BigInt(a.validBefore), nonce: a.nonce, ...over },
  });
}

async function pledge(deps: Deps, tokenId: string, wallet: string, dollars: number) {
  const usdAmount = usd(dollars);
  const req = { tokenId, usdAmount, authorization: await signedPledge(deps, tokenId, wallet, usdAmount) };
  await checkPledge(deps, req);
  return (await placePledge(deps, req)).pledge;
}

async function refusal(p: Promise<unknown>): Promise<string> {
  try {
    await p;
  } catch (e) {
    if (e instanceof DomainError) return `${e.code}${e.details?.['reason'] ? `:${String(e.details['reason'])}` : ''}`;
    throw e;
  }
  return 'OK';
}

const usdcOf = (deps: Deps, wallet: string) => deps.tokenIssuer.balanceOf(TESTNET, USDC.address, wallet);
const end = (deps: Deps, seconds = 61) => deps.clock.advance(seconds * 1000);
const settle = (deps: Deps, tokenId: string) => deps.uow.run((s) => s.raises.get(tokenId)).then((r) => settleRaise(deps, r!));

describe('splitProRata', () => {
  it('gives each share rounded down and states the remainder, exact to the unit', () => {
    expect(splitProRata(10n, [1n, 1n, 1n])).toEqual({ shares: [3n, 3n, 3n], remainder: 1n });
    expect(splitProRata(1000n, [usd(25), usd(50), usd(25)])).toEqual({ shares: [250n, 500n, 250n], remainder: 0n });
    expect(splitProRata(7n, [2n, 3n])).toEqual({ shares: [2n, 4n], remainder: 1n });
  });

  it('never gives more than there is, and leaves less than one unit per share', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: 10n ** 30n }), fc.array(fc.bigInt({ min: 1n, max: 10n ** 12n }), { minLength: 1, maxLength: 30 }), (tokens, amounts) => {
        const { shares, remainder } = splitProRata(tokens, amounts);
        const total = amounts.reduce((a, b) => a + b, 0n);
        expect(shares.reduce((a, b) => a + b, 0n) + remainder).toBe(tokens);
        expect(remainder >= 0n && remainder < BigInt(amounts.length)).toBe(true);
        shares.forEach((s, i) => expect(s).toBe((tokens * amounts[i]!) / total));
      }),
    );
  });
});

describe('the raise state machine', () => {
  it('moves RAISING → COLLECTING → FILLED, or to FAILED, and nowhere else', () => {
    const r = newRaise({ tokenId: 'tok_1', network: TESTNET, terms: { goalUsd: 1n, durationSeconds: 10, maxPerWalletUsd: null }, now: new Date(0), endsAt: new Date(10_000) });
    expect(transitionRaise(transitionRaise(r, 'COLLECTING', new Date(1)), 'FILLED', new Date(2)).state).toBe('FILLED');
    expect(transitionRaise(r, 'FAILED', new Date(1)).state).toBe('FAILED');
    expect(() => transitionRaise(r, 'FILLED', new Date(1))).toThrow();
    expect(() => transitionRaise(transitionRaise(r, 'FAILED', new Date(1)), 'COLLECTING', new Date(2))).toThrow();
  });
});

describe('creating a fair launch', () => {
  it('opens a raise instead of trading: buys and quotes are refused until it ends', async () => {
    const deps = withUsdc(makeDeps());
    const tokenId = await fairToken(deps);
    const token = await deps.uow.run((s) => s.tokens.get(tokenId));
    expect(token).toMatchObject({ launchMode: 'fair', tradingSince: null });
    expect(await refusal(planBuy(deps, { kind: 'usd', tokenId, usdAmount: usd(5) }))).toBe('TOKEN_RAISING');
    expect(await getRaise(deps, tokenId)).toMatchObject({ state: 'RAISING', goalUsd: '100', pledgedUsd: '0', endsAt: '2026-11-23T12:01:00.000Z' });
  });

  it('refuses a dev buy with a fair launch, a raise shorter than 10 s or longer than 7 days, and a goal beyond the curve', () => {
    const deps = makeDeps();
    const terms = { goalUsd: usd(100), durationSeconds: 60, maxPerWalletUsd: null };
    const code = (f: () => unknown) => {
      try {
        f();
        return 'OK';
      } catch (e) {
        return `${(e as DomainError).code}:${JSON.stringify((e as DomainError).details?.['issues'])}`;
      }
    };
    expect(code(() => checkFairLaunch(deps, terms, usd(5)))).toContain('initialBuyUsd');
    expect(code(() => checkFairLaunch(deps, { ...terms, durationSeconds: 9 }, null))).toContain('launch.durationSeconds');
    expect(code(() => checkFairLaunch(deps, { ...terms, durationSeconds: 7 * 86_400 + 1 }, null))).toContain('launch.durationSeconds');
    expect(code(() => checkFairLaunch(deps, { ...terms, goalUsd: usd(10_000) }, null))).toBe('OK');
    expect(code(() => checkFairLaunch(makeDeps({ maxBuyUsd: usd(1_000_000) }), { ...terms, goalUsd: usd(500_000) }, null))).toContain('launch.goalUsd');
  });
});

describe('pledging', () => {
  it('refuses, before any payment, a pledge over the cap (counting earlier ones), an authorization for another amount, too short or expired, and a closed raise', async () => {
    const deps = withUsdc(makeDeps());
    const tokenId = await fairToken(deps, { goal: 100, max: 50 });
    await pledge(deps, tokenId, WALLET_A, 30);
    const try_ = async (wallet: string, dollars: number, over: Record<string, bigint | string> = {}) =>
      refusal(checkPledge(deps, { tokenId, usdAmount: usd(dollars), authorization: await signedPledge(deps, tokenId, wallet, usd(dollars), over) }));
    expect(await try_(WALLET_A, 25)).toBe('PLEDGE_CAP_EXCEEDED');
    expect(await try_(WALLET_A, 20)).toBe('OK');
    expect(await try_(WALLET_C, 20, { value: usd(19) })).toBe('HELD_AUTHORIZATION_INVALID:value');
    const nowS = BigInt(Math.floor(deps.clock.now().getTime() / 1000));
    expect(await try_(WALLET_C, 20, { validBefore: nowS + 61n })).toBe('HELD_AUTHORIZATION_INVALID:valid_before');
    expect(await try_(WALLET_C, 20, { validBefore: nowS - 1n })).toBe('HELD_AUTHORIZATION_INVALID:expired');
    const late = { tokenId, usdAmount: usd(20), authorization: await signedPledge(deps, tokenId, WALLET_C, usd(20)) };
    end(deps);
    expect(await refusal(checkPledge(deps, late))).toBe('RAISE_CLOSED');
    expect(await refusal(pledgeAuthorization(deps, { tokenId, wallet: WALLET_C, usdAmount: usd(20) }))).toBe('RAISE_CLOSED');
  });

  it('refuses a pledge the wallet has not the USDC for, in words naming USDC and the amounts (not "tokens")', async () => {
    const deps = withUsdc(makeDeps());
    const tokenId = await fairToken(deps);
    deps.tokenIssuer.holderTransfer(TESTNET, USDC.address, WALLET_A, WALLET_B, usd(990));
    const req = { tokenId, usdAmount: usd(20), authorization: await signedPledge(deps, tokenId, WALLET_A, usd(20)) };
    const refused = await checkPledge(deps, req).then(
      () => null,
      (e: unknown) => e as DomainError,
    );
    expect(refused).toMatchObject({ code: 'INSUFFICIENT_BALANCE', message: 'The wallet holds 10 USDC, less than the 20 USDC this needs.' });
    expect(refused!.details).toEqual({ requested: '20', balance: '10', asset: 'USDC' });
  });

  it('refuses, before any payment, an authorization a pledge to another raise holds already (one of them could never collect it)', async () => {
    const deps = withUsdc(makeDeps());
    const first = await fairToken(deps);
    const second = await fairToken(deps);
    const held = { tokenId: first, usdAmount: usd(30), authorization: await signedPledge(deps, first, WALLET_A, usd(30)) };
    await checkPledge(deps, held);
    await placePledge(deps, held);
    const again = { tokenId: second, usdAmount: usd(30), authorization: await signedPledge(deps, second, WALLET_A, usd(30), { nonce: held.authorization.nonce }) };
    expect(await refusal(checkPledge(deps, again))).toBe('HELD_AUTHORIZATION_INVALID:used');
    const fresh = { tokenId: second, usdAmount: usd(30), authorization: await signedPledge(deps, second, WALLET_A, usd(30)) };
    expect(await refusal(checkPledge(deps, fresh))).toBe('OK');
  });

  it('a cancel proven by the pledger takes the pledge out; another wallet cannot, nor anyone after the end', async () => {
    const deps = withUsdc(makeDeps());
    const tokenId = await fairToken(deps);
    const p = await pledge(deps, tokenId, WALLET_A, 30);
    const q = await pledge(deps, tokenId, WALLET_C, 30);
    const sign = (wallet: string, id: string) => accountOf(wallet).signMessage({ message: cancelPledgeMessage(id) });
    expect(await refusal(cancelPledge(deps, { pledgeId: p.pledgeId, signature: await sign(WALLET_C, p.pledgeId) }))).toBe('PLEDGE_NOT_CANCELLABLE:not_the_pledger');
    const cancelled = await cancelPledge(deps, { pledgeId: p.pledgeId, signature: await sign(WALLET_A, p.pledgeId) });
    expect(cancelled.pledge.state).toBe('CANCELLED');
    expect(cancelled.raise.pledgedUsd).toBe('30');
    expect(await refusal(cancelPledge(deps, { pledgeId: p.pledgeId, signature: await sign(WALLET_A, p.pledgeId) }))).toBe('PLEDGE_NOT_CANCELLABLE:not_pledged');
    // Sign-In-With-X proves a wallet too: only the pledger's counts; no proof at all is no pledger.
    expect(await refusal(cancelPledge(deps, { pledgeId: q.pledgeId, provenWallet: WALLET_A }))).toBe('PLEDGE_NOT_CANCELLABLE:not_the_pledger');
    expect(await refusal(cancelPledge(deps, { pledgeId: q.pledgeId }))).toBe('PLEDGE_NOT_CANCELLABLE:not_the_pledger');
    const r = await pledge(deps, tokenId, WALLET_B, 10);
    expect((await cancelPledge(deps, { pledgeId: r.pledgeId, provenWallet: WALLET_B.toLowerCase() })).pledge.state).toBe('CANCELLED');
    end(deps);
    expect(await refusal(cancelPledge(deps, { pledgeId: q.pledgeId, signature: await sign(WALLET_C, q.pledgeId) }))).toBe('RAISE_CLOSED');
  });

  it("a wallet's pledges in force across raises, each with its token and its raise's end; a cancelled or collected one is not among them", async () => {
    const deps = withUsdc(makeDeps());
    const [first, second] = [await fairToken(deps, { goal: 50 }), await fairToken(deps, { goal: 100, seconds: 3600 })];
    const a = await pledge(deps, first, WALLET_A, 30);
    const b = await pledge(deps, second, WALLET_A, 20);
    await pledge(deps, second, WALLET_C, 5);
    const mine = await walletPledges(deps, WALLET_A.toLowerCase());
    expect(mine.pledges.map((p) => [p.pledgeId, p.tokenId, p.usdAmount, p.state])).toEqual([
      [a.pledgeId, first, '30', 'PLEDGED'],
      [b.pledgeId, second, '20', 'PLEDGED'],
    ]);
    const raise = await getRaise(deps, second);
    expect(mine.pledges[1]).toMatchObject({ network: TESTNET, endsAt: raise.endsAt, settling: false });
    await cancelPledge(deps, { pledgeId: b.pledgeId, provenWallet: WALLET_A });
    await pledge(deps, first, WALLET_C, 25);
    end(deps);
    await settle(deps, first); // filled: WALLET_A's first pledge is collected
    expect((await walletPledges(deps, WALLET_A)).pledges).toEqual([]);
    // What the wallet holds in USDC: the collected $30 gone, the cancelled $20 never taken.
    expect((await walletBalance(deps, { wallet: WALLET_A, network: TESTNET })).usdc).toBe('970');
  });
});

describe('the end of a raise', () => {
  it('under its goal: nothing is collected, every pledge released, FAILED, and the token trades', async () => {
    const deps = withUsdc(makeDeps());
    const tokenId = await fairToken(deps);
    await pledge(deps, tokenId, WALLET_A, 40);
    await pledge(deps, tokenId, WALLET_C, 30);
    expect(await settle(deps, tokenId)).toBe('waiting');
    end(deps);
    expect(await settle(deps, tokenId)).toBe('failed');
    const raise = await getRaise(deps, tokenId);
    expect(raise).toMatchObject({ state: 'FAILED', failure: 'goal_not_reached', collectedUsd: '0' });
    expect(raise.pledges.map((p) => p.state)).toEqual(['RELEASED', 'RELEASED']);
    expect([await usdcOf(deps, WALLET_A), await usdcOf(deps, WALLET_C)]).toEqual([usd(1000), usd(1000)]);
    expect(await refusal(planBuy(deps, { kind: 'usd', tokenId, usdAmount: usd(5) }))).toBe('OK');
  });

  it('over its goal: every pledge collected, one buy at the base fee, tokens pro rata to the unit, the remainder kept, positions booked; the launch fee starts then', async () => {
    const deps = withUsdc(makeDeps({ launchFee: { startBps: 5_000n, decayMs: 20_000n } }));
    const tokenId = await fairToken(deps, { goal: 100 });
    await pledge(deps, tokenId, WALLET_A, 33.333333);
    await pledge(deps, tokenId, WALLET_C, 50);
    await pledge(deps, tokenId, WALLET_A, 16.666667);
    await pledge(deps, tokenId, WALLET_B, 0.07);
    end(deps);
    const before = await deps.uow.run((s) => s.tokens.get(tokenId));
    expect(await settle(deps, tokenId)).toBe('filled');
    const total = usd(100.07);
    const q = quoteBuyWithUsd(before!.params, before!.curve, total); // the base fee: no launch fee on the raise's buy
    const raise = await getRaise(deps, tokenId);
    const amounts = [usd(33.333333), usd(50), usd(16.666667), usd(0.07)];
    const split = splitProRata(q.tokensOut, amounts);
    expect(raise.state).toBe('FILLED');
    expect(raise.collectedUsd).toBe('100.07');
    const pledges = await deps.uow.run((s) => s.raises.pledgesOf(tokenId));
    expect(pledges.map((p) => p.tokens)).toEqual(split.shares);
    const stored = await deps.uow.run((s) => s.raises.get(tokenId));
    expect(stored).toMatchObject({ tokensBought: q.tokensOut, remainderTokens: split.remainder });
    expect(split.remainder).toBeLessThan(4n);
    // Positions: each wallet's pledges' shares and USD.
    const pos = (w: string) => deps.uow.run((s) => s.positions.get(TESTNET, w, tokenId));
    expect((await pos(WALLET_A))?.balance).toBe(split.shares[0]! + split.shares[2]!);
    expect((await pos(WALLET_A))?.costBasisUsd).toBe(usd(50));
    expect((await pos(WALLET_C))?.balance).toBe(split.shares[1]);
    expect((await pos(WALLET_B))?.balance).toBe(split.shares[3]);
    // The trades' fees add up to the fee the buy took; the curve moved once, by the whole buy.
    const trades = await deps.uow.run((s) => s.trades.listByToken(tokenId, { limit: 10 }));
    expect(trades.items.reduce((s, t) => s + t.feeUsd, 0n)).toBe(q.feeUsd);
    expect(trades.items.reduce((s, t) => s + t.usdAmount, 0n)).toBe(total);
    const after = await deps.uow.run((s) => s.tokens.get(tokenId));
    expect(after!.curve).toEqual(q.after);
    // USDC: every pledge moved to custody, exactly.
    expect(await usdcOf(deps, WALLET_A)).toBe(usd(950));
    expect(await usdcOf(deps, deps.tokenIssuer.custody(TESTNET))).toBe(total);
    // Trading starts now, with the launch fee at its start.
    expect(after!.tradingSince).toEqual(deps.clock.now());
    expect(feeBpsOf(after!, deps.clock.now())).toBe(5_000n);
    expect(feeBpsOf(after!, new Date(deps.clock.now().getTime() + 20_000))).toBe(after!.params.feeBps);
    expect(await refusal(planBuy(deps, { kind: 'usd', tokenId, usdAmount: usd(5) }))).toBe('OK');
    expect([...deps.uow.db.deliveries.values()].filter((d) => d.tokenId === tokenId).map((d) => [d.wallet, d.amount])).toEqual([
      [WALLET_A, split.shares[0]! + split.shares[2]!],
      [WALLET_C, split.shares[1]],
      [WALLET_B, split.shares[3]],
    ]);
  });

  it('a pledge that cannot be collected is dropped; when that takes the total below the goal, what was collected is paid back in full and the raise FAILS', async () => {
    const deps = withUsdc(makeDeps());
    const tokenId = await fairToken(deps, { goal: 100 });
    await pledge(deps, tokenId, WALLET_C, 60); // collected first: its receive reverts
    await pledge(deps, tokenId, WALLET_A, 45);
    end(deps);
    deps.tokenIssuer.scriptNext('reverted');
    expect(await settle(deps, tokenId)).toBe('failed');
    const raise = await getRaise(deps, tokenId);
    expect(raise).toMatchObject({ state: 'FAILED', failure: 'collected_below_goal', collectedUsd: '45' });
    expect(raise.pledges.map((p) => [p.wallet, p.state])).toEqual([
      [WALLET_C, 'DROPPED'],
      [WALLET_A, 'REFUNDED'],
    ]);
    const payout = await deps.uow.run((s) => s.payouts.get(raise.pledges[1]!.payoutId!));
    expect(payout).toMatchObject({ wallet: WALLET_A, amount: usd(45), asset: 'USDC', reason: 'refund', state: 'PENDING' });
    expect(await usdcOf(deps, WALLET_C)).toBe(usd(1000));
    expect(await usdcOf(deps, WALLET_A)).toBe(usd(955)); // until the payout is sent
    expect(await deps.uow.run((s) => s.trades.listByToken(tokenId, { limit: 10 })).then((p) => p.items.length)).toBe(0);
  });

  it('settles once: a second settler finds it done, and a restart after the collects (the process died) finishes without collecting twice', async () => {
    const deps = withUsdc(makeDeps());
    const tokenId = await fairToken(deps, { goal: 50 });
    await pledge(deps, tokenId, WALLET_A, 30);
    await pledge(deps, tokenId, WALLET_C, 30);
    end(deps);
    // The first process moved the raise to COLLECTING and collected both, then died before booking anything.
    const raise = (await deps.uow.run((s) => s.raises.get(tokenId)))!;
    await deps.uow.run((s) => s.raises.update(transitionRaise(raise, 'COLLECTING', deps.clock.now()), 'RAISING'));
    for (const p of await deps.uow.run((s) => s.raises.pledgesOf(tokenId))) {
      const { asset: _a, ...a } = p.authorization;
      await collectHeld(deps, `pledge:${p.pledgeId}`, TESTNET, USDC.address, a, tokenId);
    }
    const metrics = new MemoryMetrics(METRICS);
    const settler = new RaiseSettler({ ...deps, metrics, logger: { debug() {}, info() {}, warn() {}, error() {} } });
    const [one, two] = await Promise.all([settler.runOnce(), settler.runOnce()]);
    expect([one.get(tokenId), two.get(tokenId)].sort()).toEqual(['filled', 'settled_elsewhere']);
    expect(await settler.runOnce()).toEqual(new Map());
    expect(await usdcOf(deps, deps.tokenIssuer.custody(TESTNET))).toBe(usd(60));
    expect((await deps.uow.run((s) => s.trades.listByToken(tokenId, { limit: 10 }))).items).toHaveLength(2);
    expect(await metrics.total('raises_settled_total', { outcome: 'filled' })).toBe(1);
  });
});

describeWithServices('two processes on one PostgreSQL database', () => {
  it('settle a raise once: one fills it, the other finds it settled; the pledges are collected once', async () => {
    const schema = `t_${randomBytes(6).toString('hex')}`;
    const url = `${POSTGRES_URL}?schema=${schema}`;
    const [one, two] = [await MikroOrmUnitOfWork.open({ url }), await MikroOrmUnitOfWork.open({ url })];
    try {
      const deps = withUsdc({ ...makeDeps(), uow: one } as unknown as Deps);
      const tokenId = await fairToken(deps, { goal: 50 });
      await pledge(deps, tokenId, WALLET_A, 30);
      await pledge(deps, tokenId, WALLET_C, 30);
      end(deps);
      const silent = { debug() {}, info() {}, warn() {}, error() {} };
      const settler = (uow: typeof one) => new RaiseSettler({ ...deps, uow, metrics: new MemoryMetrics(METRICS), logger: silent });
      const steps = (await Promise.all([settler(one).runOnce(), settler(two).runOnce()])).map((m) => m.get(tokenId));
      // Both may have collected (each collect is keyed, so once on chain); one booked the fill.
      expect(steps.filter((s) => s === 'filled')).toHaveLength(1);
      for (const _ of [1, 2]) await settler(two).runOnce();
      expect((await getRaise({ uow: two }, tokenId)).state).toBe('FILLED');
      expect(await usdcOf(deps, deps.tokenIssuer.custody(TESTNET))).toBe(usd(60));
      expect((await two.run((s) => s.trades.listByToken(tokenId, { limit: 10 }))).items).toHaveLength(2);
    } finally {
      await one.close();
      await two.close();
      await dropSchema(schema);
    }
  }, 60_000);
});
