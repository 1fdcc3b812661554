/**
 * Fee shares over the in-memory adapters: every trade books its creator's and referrers' shares
 * with it, exactly; the payer pays a wallet once its shares reach the threshold, once, whatever
 * dies in between; the reads show accrued, paid and pending.
 */
import { describe, expect, it } from 'vitest';
import { FakePayoutSender } from '../../src/adapters/payout/fake/fake-payout-sender.js';
import { buyToken, planBuy } from '../../src/app/trading/buy-token.js';
import { createToken } from '../../src/app/tokens/create-token.js';
import { getWalletEarnings, listCreators } from '../../src/app/earnings/earnings.js';
import { getToken } from '../../src/app/tokens/get-token.js';
import { listTokens } from '../../src/app/tokens/list-tokens.js';
import { EarningsPayer } from '../../src/app/workers/earnings-payer.js';
import { PayoutWorker } from '../../src/app/workers/payout-worker.js';
import { parseUsd } from '../../src/domain/money.js';
import { TESTNET } from '../../src/domain/network.js';
import { validateTokenMetadata } from '../../src/domain/token.js';
import type { UnitOfWork } from '../../src/ports/unit-of-work.js';
import { makeDeps, WALLET_A, WALLET_B } from '../support/app-harness.js';

const silent = { debug() {}, info() {}, warn() {}, error() {} };
const PLATFORM = '0x90F79bf6EB2c4f870365E785982E1f101E93b906';

async function setup() {
  const deps = makeDeps();
  const token = await createToken(deps, { metadata: validateTokenMetadata({ name: 'Earner', symbol: 'EARN' }), creator: WALLET_A, platformReferrer: PLATFORM, network: TESTNET });
  const buy = async (usd: string, buyer = WALLET_B) => {
    const plan = await planBuy(deps, { kind: 'usd', tokenId: token.tokenId, usdAmount: parseUsd(usd) }, TESTNET);
    return buyToken(deps, { plan, buyer, network: TESTNET });
  };
  const payer = (uow: UnitOfWork = deps.uow) => new EarningsPayer({ uow, clock: deps.clock, ids: deps.ids, logger: silent, minPayoutUsd: parseUsd('1') });
  return { deps, token, buy, payer };
}

describe('fee shares', () => {
  it('a buy books half the fee to the creator and a fifth to the platform referrer; the treasury keeps the rest', async () => {
    const { deps, token, buy } = await setup();
    const bought = await buy('100.01');
    const fee = parseUsd(bought.trade.feeUsd);
    expect(fee).toBe(1_000_100n); // 1 % of $100.01, rounded up
    expect([...deps.uow.db.earnings.values()].map((e) => ({ role: e.role, wallet: e.wallet, amount: e.amount }))).toEqual([
      { role: 'creator', wallet: WALLET_A, amount: 500_050n },
      { role: 'platform_referrer', wallet: PLATFORM, amount: 200_020n },
    ]);
    const accrued = deps.uow.db.events.find((e) => e.type === 'earnings.accrued')!;
    expect(accrued.data).toMatchObject({ tradeId: bought.trade.tradeId, feeUsd: '1.0001', treasuryUsd: '0.30003' });
    expect((await getToken(deps, token.tokenId)).creatorEarningsUsd).toBe('0.50005');
    expect((await listTokens(deps, {})).items.map((t) => t.creatorEarningsUsd)).toEqual(['0.50005']);
  });

  it('pays a wallet once its shares reach the threshold, in USDC, exactly what the rows say, once', async () => {
    const { deps, buy, payer } = await setup();
    await buy('150');
    expect(await payer().runOnce()).toBe(0); // $0.75 to the creator, $0.30 to the platform: below $1
    await buy('100');
    expect(await payer().runOnce()).toBe(1); // the creator's $1.25; the platform's $0.50 waits
    expect(await payer().runOnce()).toBe(0);
    const payouts = [...deps.uow.db.payouts.values()];
    expect(payouts).toMatchObject([{ wallet: WALLET_A, asset: 'USDC', amount: 1_250_000n, reason: 'creator_fee' }]);

    const sender = new FakePayoutSender();
    const worker = new PayoutWorker({ uow: deps.uow, clock: deps.clock, sender, logger: silent, maxAttempts: 3, backoffBaseMs: 0, backoffMaxMs: 0, confirmPollMs: 0, stuckAfterMs: 60_000 });
    await worker.runOnce();
    await worker.runOnce();
    expect(sender.transfers).toMatchObject([{ wallet: WALLET_A, amount: 1_250_000n }]);
    const mine = await getWalletEarnings(deps, WALLET_A);
    expect(mine).toMatchObject({ accruedUsd: '1.25', paidUsd: '1.25', pendingUsd: '0' });
    const platform = await getWalletEarnings(deps, PLATFORM);
    expect(platform).toMatchObject({ accruedUsd: '0.5', paidUsd: '0', pendingUsd: '0.5', items: [{ role: 'platform_referrer', accruedUsd: '0.5' }] });
    expect((await listCreators(deps, 10)).items).toEqual([{ rank: 1, wallet: WALLET_A, earnedUsd: '1.25', tokens: 1 }]);
  });

  it('the process dies as it queues the payout: nothing is marked paid, and the next pass pays it once', async () => {
    const { deps, buy, payer } = await setup();
    await buy('300');
    const dying: UnitOfWork = {
      run: (w) => deps.uow.run(w),
      close: () => deps.uow.close(),
      transaction: (w) => deps.uow.transaction(async (s) => {
        await w(s);
        throw new Error('killed before commit');
      }),
    };
    await expect(payer(dying).runOnce()).rejects.toThrow('killed');
    expect(deps.uow.db.payouts.size).toBe(0);
    expect([...deps.uow.db.earnings.values()].every((e) => e.payoutId === null)).toBe(true);
    expect(await payer().runOnce()).toBe(1);
    expect(await payer().runOnce()).toBe(0);
    expect([...deps.uow.db.payouts.values()].map((p) => p.amount)).toEqual([1_500_000n]);
  });

  it('a creator buying their own token still earns the creator share; a platform referrer buying earns no referral', async () => {
    const { deps, buy } = await setup();
    await buy('10', PLATFORM);
    expect([...deps.uow.db.earnings.values()].map((e) => e.role)).toEqual(['creator']);
  });
});
