/**
 * A crash of everything (docs/payments.md): the service and both devnet chains are killed together with
 * kill -9 in the middle of a burst of paid buys and sells, then started again on the same data.
 * Afterwards, for every wallet, the USDC the chain shows equals what the books say — on SQLite
 * (the `npm start` default) and on PostgreSQL.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { erc20Abi, type Hex } from 'viem';
import { afterAll, describe, expect, it } from 'vitest';
import { TESTNET } from '../../src/domain/network.js';
import { burstThenKill, crashBooks, devnetChain, usdcOf } from '../support/crash-books.js';
import { dropSchema, POSTGRES_URL } from '../support/postgres.js';
import { withoutServices } from '../support/services.js';
import { queryDatabase, serviceProcessEnv, startServiceProcess, type ServiceProcess } from '../support/service-process.js';
import { signedSellBody } from '../support/onchain.js';
import { devAccount, payingFetch } from '../support/x402-client.js';

const TREASURY = '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266';
const WALLETS = [5, 6, 7, 8].map(devAccount);

const cleanups: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const c of cleanups.reverse()) await c().catch(() => undefined);
});

const databases: [string, (dataDir: string) => Promise<string>][] = [
  ['SQLite', async (dataDir) => `sqlite:${join(dataDir, 'service.db')}`],
  [
    'PostgreSQL',
    async () => {
      const schema = `crash_${process.pid}_${Date.now()}`;
      cleanups.push(() => dropSchema(schema));
      return `${POSTGRES_URL}?schema=${schema}`;
    },
  ],
];

describe.each(withoutServices(databases))('kill -9 of the service and both chains mid-burst, on %s', (_name, database) => {
  it('after a restart, the chain equals the books for every wallet, and nothing is left unfinished', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'launchpad-crash-'));
    cleanups.push(async () => rmSync(dataDir, { recursive: true, force: true }));
    const databaseUrl = await database(dataDir);
    const { env, devnetPort } = await serviceProcessEnv(dataDir, databaseUrl, {
      RECONCILER_GRACE_SECONDS: '2',
      // Creators' fee shares are paid out as soon as they reach a cent, so the crash also falls
      // between shares accrued and their payout.
      EARNINGS_PAYOUT_MIN_USD: '0.01',
    });
    let service: ServiceProcess = await startServiceProcess(env);
    cleanups.push(() => service.stop());
    const chain = devnetChain(devnetPort);
    const treasuryBefore = await usdcOf(chain, TREASURY);

    // Each wallet creates a token, then buys and sells it as fast as it can.
    const call = (wallet: (typeof WALLETS)[number], path: string, body: unknown) =>
      payingFetch(wallet)(`${service.url}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-wallet-address': wallet.address },
        body: JSON.stringify(body),
      });
    const tokens = await Promise.all(
      WALLETS.map(async (w, i) => ((await (await call(w, '/tokens', { name: `Crash ${i}`, symbol: `CR${i}` })).json()) as { data: { tokenId: string } }).data.tokenId),
    );
    await burstThenKill(
      WALLETS,
      async (w, i, done) => {
        const buy = await call(w, '/entrypoints/token_buy_usd', { tokenId: tokens[i], usdAmount: '1.5' });
        const bought = ((await buy.json()) as { data?: { tokensReceived?: string } }).data;
        done();
        // Sells tokens already delivered: one signed before its token is deployed is refused
        // (TOKEN_NOT_DEPLOYED) before any payment, and the loop goes on buying.
        if (bought?.tokensReceived) {
          const sell = await signedSellBody(service.url, w, tokens[i]!, '1000').catch(() => undefined);
          if (sell) await call(w, '/entrypoints/token_sell', sell);
          done();
        }
      },
      { atLeast: 12, kill: () => service.killAll() },
    );

    service = await startServiceProcess(env);
    // The reconciler and the payout worker finish what the crash left.
    const books = crashBooks(databaseUrl, chain);
    const settled = await books.settled();
    expect(settled.payments.length).toBeGreaterThan(WALLETS.length * 2);
    await books.expectUsdcEqualsChain(WALLETS.map((w) => w.address));
    const allCharged = WALLETS.reduce((s, w) => s + books.charged(w.address), 0n);
    const allPaidOut = WALLETS.reduce((s, w) => s + books.paidOut(w.address), 0n);
    expect(await usdcOf(chain, TREASURY)).toBe(treasuryBefore + allCharged - allPaidOut);

    // Every creator share was paid by exactly one payout, for exactly what it claimed.
    const earningsPayouts = await queryDatabase<{ payout_id: string; amount: string; claimed: string }>(
      databaseUrl,
      `select p.payout_id, p.amount, (select sum(e.amount) from earnings e where e.payout_id = p.payout_id) as claimed
       from payouts p where p.reason = 'creator_fee'`,
    );
    expect(earningsPayouts.length).toBeGreaterThan(0);
    for (const p of earningsPayouts) expect({ payout: p.payout_id, claimed: BigInt(String(p.claimed)) }).toEqual({ payout: p.payout_id, claimed: BigInt(String(p.amount)) });

    // Tokens: every wallet holds on chain exactly what the ledger says it holds, and custody the rest.
    const launched = await queryDatabase<{ token_id: string; address: string }>(databaseUrl, `select token_id, address from tokens where network = '${TESTNET}'`);
    expect(launched).toHaveLength(WALLETS.length);
    const erc20 = (address: string, owner: string) =>
      chain.readContract({ address: address as Hex, abi: erc20Abi, functionName: 'balanceOf', args: [owner as Hex] });
    for (const t of launched) {
      const held = await books.expectTokensEqualChain({ tokenId: t.token_id, address: t.address }, WALLETS.map((w) => w.address));
      expect(await erc20(t.address, TREASURY)).toBe(1_000_000_000n * 10n ** 18n - held);
    }

    await books.expectEveryAppliedTradeOnce();
    await service.stop();
  }, 180_000);
});
