/**
 * Creator splits, cashback tokens and vested dev buys over the in-memory adapters (docs/api.md
 * "Fees and earnings", decisions 0078 and 0079): every trade's creator share divided among the
 * splits to the unit, or earned by the trader itself; a change of splits applies to the trades
 * after it; a vested dev buy stays locked and is released on its schedule, once, whatever dies.
 */
import { describe, expect, it } from 'vitest';
import { createToken } from '../../src/app/tokens/create-token.js';
import { setCreatorSplits } from '../../src/app/tokens/creator-splits.js';
import { getToken } from '../../src/app/tokens/get-token.js';
import { buyToken, planBuy } from '../../src/app/trading/buy-token.js';
import { listPositions } from '../../src/app/trading/list-positions.js';
import { EarningsPayer } from '../../src/app/workers/earnings-payer.js';
import { VestingReleaser } from '../../src/app/workers/vesting-releaser.js';
import { formatTokens, parseUsd } from '../../src/domain/money.js';
import { TESTNET } from '../../src/domain/network.js';
import { validateTokenMetadata } from '../../src/domain/token.js';
import type { UnitOfWork } from '../../src/ports/unit-of-work.js';
import { makeDeps, WALLET_A, WALLET_B } from '../support/app-harness.js';

const silent = { debug() {}, info() {}, warn() {}, error() {} };
const [TEAM_1, TEAM_2, TEAM_3] = ['0x90F79bf6EB2c4f870365E785982E1f101E93b906', '0x15d34AAf54267DB7D7c367839AAf71A00a2C6A65', '0x9965507D1a55bcC2695C58ba16FB37d819B0A4dc'];
const SPLITS = [
  { wallet: TEAM_1, bps: 6000 },
  { wallet: TEAM_2, bps: 3000 },
  { wallet: TEAM_3, bps: 1000 },
];

type Deps = ReturnType<typeof makeDeps>;
const metadata = (symbol: string) => validateTokenMetadata({ name: `Token ${symbol}`, symbol });

async function buy(deps: Deps, tokenId: string, usd: string, buyer = WALLET_B) {
  const plan = await planBuy(deps, { kind: 'usd', tokenId, usdAmount: parseUsd(usd) }, TESTNET);
  return buyToken(deps, { plan, buyer, network: TESTNET });
}

/** Every earning booked, as role/wallet/amount rows of one trade. */
const earningsOf = (deps: Deps, tradeId: string) =>
  [...deps.uow.db.earnings.values()].filter((e) => e.tradeId === tradeId).map((e) => ({ role: e.role, wallet: e.wallet, amount: e.amount }));

describe('creator splits', () => {
  it('60/30/10: every trade earns each wallet its part of the creator share to the unit, the first the remainder, the creator nothing', async () => {
    const deps = makeDeps();
    const token = await createToken(deps, { metadata: metadata('TEAM'), creator: WALLET_A, creatorSplits: SPLITS, network: TESTNET });
    expect(token.creatorSplits).toEqual(SPLITS);
    expect(token.feeMode).toBe('creator');
    for (const usd of ['1', '3.33', '77.77', '0.5']) {
      const bought = await buy(deps, token.tokenId, usd);
      const share = (parseUsd(bought.feeUsd) * 5000n) / 10_000n;
      const parts = [6000n, 3000n, 1000n].map((bps) => (share * bps) / 10_000n);
      parts[0] = share - parts[1]! - parts[2]!;
      expect(earningsOf(deps, bought.trade.tradeId)).toEqual(
        [TEAM_1, TEAM_2, TEAM_3].map((wallet, i) => ({ role: 'creator', wallet, amount: parts[i]! })).filter((e) => e.amount > 0n),
      );
    }
    expect([...deps.uow.db.earnings.values()].filter((e) => e.wallet === WALLET_A)).toEqual([]);
    // The token's creator earnings are its creator share, all its wallets together.
    const total = [...deps.uow.db.earnings.values()].reduce((s, e) => s + e.amount, 0n);
    expect(parseUsd((await getToken(deps, token.tokenId)).creatorEarningsUsd)).toBe(total);
  });

  it('the creator changes them later, proving its wallet: trades after the change earn the new wallets; the change is an event; no one else may', async () => {
    const deps = makeDeps();
    const token = await createToken(deps, { metadata: metadata('MOVE'), creator: WALLET_A, network: TESTNET });
    expect(token.creatorSplits).toEqual([{ wallet: WALLET_A, bps: 10_000 }]);
    const before = await buy(deps, token.tokenId, '10');
    expect(earningsOf(deps, before.trade.tradeId).map((e) => e.wallet)).toEqual([WALLET_A]);

    await expect(setCreatorSplits(deps, { tokenId: token.tokenId, wallet: WALLET_B, creatorSplits: SPLITS })).rejects.toMatchObject({ code: 'NOT_TOKEN_CREATOR' });
    const changed = await setCreatorSplits(deps, { tokenId: token.tokenId, wallet: WALLET_A.toLowerCase(), creatorSplits: SPLITS.map((s) => ({ ...s, wallet: s.wallet.toLowerCase() })) });
    expect(changed.creatorSplits).toEqual(SPLITS); // checksummed
    const event = deps.uow.db.events.find((e) => e.type === 'token.splits_changed')!;
    expect(event.data).toEqual({ tokenId: token.tokenId, creatorSplits: SPLITS, previous: [{ wallet: WALLET_A, bps: 10_000 }] });

    const after = await buy(deps, token.tokenId, '10');
    expect(earningsOf(deps, after.trade.tradeId).map((e) => e.wallet)).toEqual([TEAM_1, TEAM_2, TEAM_3]);
    expect(earningsOf(deps, before.trade.tradeId).map((e) => e.wallet)).toEqual([WALLET_A]); // booked before: as it was

    // Back to the creator alone.
    const alone = await setCreatorSplits(deps, { tokenId: token.tokenId, wallet: WALLET_A, creatorSplits: [{ wallet: WALLET_A, bps: 10_000 }] });
    expect(alone.creatorSplits).toEqual([{ wallet: WALLET_A, bps: 10_000 }]);
    expect(deps.uow.db.tokens.get(token.tokenId)!.creatorSplits).toBeNull();
  });

  it('a change is refused as the create would be: a wrong sum, a wallet twice, eleven wallets', async () => {
    const deps = makeDeps();
    const token = await createToken(deps, { metadata: metadata('BAD'), creator: WALLET_A, network: TESTNET });
    const refused = (creatorSplits: { wallet: string; bps: number }[]) => setCreatorSplits(deps, { tokenId: token.tokenId, wallet: WALLET_A, creatorSplits });
    await expect(refused([{ wallet: TEAM_1, bps: 5000 }])).rejects.toMatchObject({ code: 'VALIDATION_ERROR' });
    await expect(refused([{ wallet: TEAM_1, bps: 5000 }, { wallet: TEAM_1, bps: 5000 }])).rejects.toMatchObject({ code: 'VALIDATION_ERROR' });
    const eleven = Array.from({ length: 11 }, (_, i) => ({ wallet: `0x${String(i + 1).padStart(40, '0')}`, bps: i === 0 ? 9000 : 100 }));
    await expect(refused(eleven)).rejects.toMatchObject({ code: 'VALIDATION_ERROR' });
    expect(deps.uow.db.events.some((e) => e.type === 'token.splits_changed')).toBe(false);
  });
});

describe('a cashback token', () => {
  it("the trader earns the creator's half of its own fee, the creator nothing; paid out as cashback", async () => {
    const deps = makeDeps();
    const token = await createToken(deps, { metadata: metadata('BACK'), creator: WALLET_A, feeMode: 'cashback', network: TESTNET });
    expect(token).toMatchObject({ feeMode: 'cashback', creatorSplits: null });
    const bought = await buy(deps, token.tokenId, '250');
    const fee = parseUsd(bought.feeUsd);
    expect(earningsOf(deps, bought.trade.tradeId)).toEqual([{ role: 'cashback', wallet: WALLET_B, amount: fee / 2n }]);
    expect([...deps.uow.db.earnings.values()].some((e) => e.wallet === WALLET_A)).toBe(false);
    await expect(setCreatorSplits(deps, { tokenId: token.tokenId, wallet: WALLET_A, creatorSplits: SPLITS })).rejects.toMatchObject({ code: 'VALIDATION_ERROR' });

    const payer = new EarningsPayer({ uow: deps.uow, clock: deps.clock, ids: deps.ids, logger: silent, minPayoutUsd: parseUsd('1') });
    expect(await payer.runOnce()).toBe(1);
    expect([...deps.uow.db.payouts.values()]).toMatchObject([{ wallet: WALLET_B, amount: fee / 2n, reason: 'cashback' }]);
  });
});

describe('a vested dev buy', () => {
  const CLIFF = 3600;
  const DURATION = 36_000;

  async function vested() {
    const deps = makeDeps();
    const created = await createToken(deps, {
      metadata: metadata('VEST'),
      creator: WALLET_A,
      initialBuyUsd: parseUsd('50'),
      vesting: { cliffSeconds: CLIFF, durationSeconds: DURATION },
      network: TESTNET,
    });
    const releaser = (uow: UnitOfWork = deps.uow) => new VestingReleaser({ uow, clock: deps.clock, ids: deps.ids, logger: silent });
    const bought = deps.uow.db.trades[0]!.tokenAmount;
    return { deps, created, releaser, bought };
  }

  const deliveredTo = (deps: Deps, wallet: string) => [...deps.uow.db.deliveries.values()].filter((d) => d.wallet === wallet).reduce((s, d) => s + d.amount, 0n);

  it('stays in custody, locked: no delivery, the token and the position show the schedule and what is locked', async () => {
    const { deps, created, bought } = await vested();
    expect(created.initialBuy!.delivery).toBeNull();
    expect(deps.uow.db.deliveries.size).toBe(0);
    expect(created.vesting).toMatchObject({
      tokens: formatTokens(bought),
      releasedTokens: '0',
      lockedTokens: formatTokens(bought),
      cliffSeconds: CLIFF,
      durationSeconds: DURATION,
      startsAt: created.createdAt,
      cliffEndsAt: new Date(Date.parse(created.createdAt) + CLIFF * 1000).toISOString(),
      endsAt: new Date(Date.parse(created.createdAt) + (CLIFF + DURATION) * 1000).toISOString(),
    });
    expect(created.initialBuy!.position).toMatchObject({ balance: formatTokens(bought), lockedBalance: formatTokens(bought) });
    const positions = await listPositions(deps, { wallet: WALLET_A, network: TESTNET });
    expect(positions.items[0]).toMatchObject({ balance: formatTokens(bought), lockedBalance: formatTokens(bought), vesting: { cliffSeconds: CLIFF } });
  });

  it('releases nothing before the cliff, then what vested, linearly, as deliveries to the creator; everything by the end, once', async () => {
    const { deps, created, releaser, bought } = await vested();
    deps.clock.advance(CLIFF * 1000 - 1);
    expect(await releaser().runOnce()).toBe(0);
    deps.clock.advance(1 + (DURATION * 1000) / 4);
    expect(await releaser().runOnce()).toBe(1);
    expect(deliveredTo(deps, WALLET_A)).toBe(bought / 4n);
    expect(await releaser().runOnce()).toBe(0); // nothing more until the next look
    const view = await getToken(deps, created.tokenId);
    expect(view.vesting).toMatchObject({ releasedTokens: formatTokens(bought / 4n), lockedTokens: formatTokens(bought - bought / 4n) });
    expect(deps.uow.db.events.filter((e) => e.type === 'vesting.released')).toHaveLength(1);
    deps.clock.advance(DURATION * 1000);
    expect(await releaser().runOnce()).toBe(1);
    expect(await releaser().runOnce()).toBe(0);
    expect(deliveredTo(deps, WALLET_A)).toBe(bought);
    expect((await getToken(deps, created.tokenId)).vesting).toMatchObject({ lockedTokens: '0', nextReleaseAt: null });
    const positions = await listPositions(deps, { wallet: WALLET_A, network: TESTNET });
    expect(positions.items[0]).toMatchObject({ balance: formatTokens(bought), lockedBalance: '0' });
  });

  it('a release that dies before its commit releases nothing; the next pass releases it once; two passes at once release it once', async () => {
    const { deps, releaser, bought } = await vested();
    deps.clock.advance((CLIFF + DURATION) * 1000);
    const dying: UnitOfWork = {
      run: (w) => deps.uow.run(w),
      close: () => deps.uow.close(),
      transaction: (w) =>
        deps.uow.transaction(async (s) => {
          await w(s);
          throw new Error('killed before commit');
        }),
    };
    expect(await releaser(dying).runOnce()).toBe(0); // the failure is logged, the pass goes on
    expect(deps.uow.db.deliveries.size).toBe(0);
    expect(deps.uow.db.tokens.values().next().value!.vesting!.released).toBe(0n);
    const [a, b] = await Promise.all([releaser().runOnce(), releaser().runOnce()]);
    expect(a + b).toBe(1);
    expect([...deps.uow.db.deliveries.values()].map((d) => d.amount)).toEqual([bought]);
  });
});
