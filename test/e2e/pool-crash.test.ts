/**
 * A crash of everything on the pool (docs/payments.md, decisions 0059 and 0061): two tokens are
 * bought out and graduate to their Uniswap v2 pools on the devnet, then the service and both
 * chains are killed together with kill -9 in the middle of a burst of paid pool buys and sells —
 * custody's swaps and pulls signed, sent, mined or not — and started again on the same data.
 * Afterwards, for every wallet, the USDC and the tokens the chain shows equal what the books say;
 * every applied trade is booked once, every recorded swap that moved money is booked, and nothing
 * is left unfinished.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Hex } from 'viem';
import { afterAll, describe, expect, it } from 'vitest';
import { burstThenKill, crashBooks, devnetChain } from '../support/crash-books.js';
import { withoutServices } from '../support/services.js';
import { queryDatabase, serviceProcessEnv, startServiceProcess, type ServiceProcess } from '../support/service-process.js';
import { signedSellBody } from '../support/onchain.js';
import { pollUntil } from '../support/wait.js';
import { devAccount, payingFetch } from '../support/x402-client.js';

const WALLETS = [5, 6, 7].map(devAccount);

const dataDir = mkdtempSync(join(tmpdir(), 'launchpad-pool-crash-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

describe.each(withoutServices([['SQLite', `sqlite:${join(dataDir, 'service.db')}`] as const]))('kill -9 of the service and both chains mid-burst of pool trades, on %s', (_name, databaseUrl) => {
  it('after a restart, the chain equals the books for every wallet, in USDC and in tokens, and nothing is left unfinished', async () => {
    const { env, devnetPort } = await serviceProcessEnv(dataDir, databaseUrl, {
      RECONCILER_GRACE_SECONDS: '2',
      // A curve a hundred times cheaper, so a demo wallet can buy it out (test/e2e/graduation.test.ts).
      CURVE_VIRTUAL_USD: '60',
      GRADUATION_FEE_USD: '1.5',
      EARNINGS_PAYOUT_MIN_USD: '0.01',
    });
    let service: ServiceProcess = await startServiceProcess(env);
    try {
      const chain = devnetChain(devnetPort);
      const call = (wallet: (typeof WALLETS)[number], path: string, body: unknown) =>
        payingFetch(wallet)(`${service.url}${path}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-wallet-address': wallet.address },
          body: JSON.stringify(body),
        });
      const tokenOf = async (tokenId: string) => ((await (await fetch(`${service.url}/tokens/${tokenId}`)).json()) as { data: { address: string | null; pool: { state: string } | null } }).data;

      // Each wallet creates a token and buys it out: the curve closes and the token graduates.
      const tokens = await Promise.all(
        WALLETS.map(async (w, i) => {
          const tokenId = ((await (await call(w, '/tokens', { name: `Pool crash ${i}`, symbol: `PC${i}` })).json()) as { data: { tokenId: string } }).data.tokenId;
          expect((await call(w, '/entrypoints/token_buy_usd', { tokenId, usdAmount: '20' })).status).toBe(200);
          const past = await fetch(`${service.url}/entrypoints/token_buy_usd`, {
            method: 'POST',
            headers: { 'content-type': 'application/json', 'x-wallet-address': w.address },
            body: JSON.stringify({ tokenId, usdAmount: '9000' }),
          });
          const maxUsd = ((await past.json()) as { error: { details: { maxUsd: string } } }).error.details.maxUsd;
          expect((await call(w, '/entrypoints/token_buy_usd', { tokenId, usdAmount: maxUsd })).status).toBe(200);
          return tokenId;
        }),
      );
      // Their pools are seeded by the workers.
      await pollUntil(async () => (await Promise.all(tokens.map(tokenOf))).every((t) => t.pool?.state === 'CREATED'), { timeoutMs: 60_000, stepMs: 250 });
      const launched = await Promise.all(tokens.map(tokenOf));
      expect(launched.map((t) => t.pool?.state)).toEqual(WALLETS.map(() => 'CREATED'));

      // Pool buys and sells as fast as each wallet can, then everything dies at once.
      await burstThenKill(
        WALLETS,
        async (w, i, done) => {
          await (await call(w, '/entrypoints/token_buy_usd', { tokenId: tokens[i], usdAmount: '2' })).arrayBuffer();
          done();
          const sell = await signedSellBody(service.url, w, tokens[i]!, '100000').catch(() => undefined);
          if (sell) await (await call(w, '/entrypoints/token_sell', sell)).arrayBuffer();
          done();
        },
        // At any moment of the calls in flight: a payment settled, a swap or pull signed, sent, mined, booked.
        { atLeast: 8, jitterMs: 300, kill: () => service.killAll() },
      );

      service = await startServiceProcess(env);
      const books = crashBooks(databaseUrl, chain);
      await books.settled();
      await books.expectUsdcEqualsChain(WALLETS.map((w) => w.address));

      // Tokens: every wallet holds on chain exactly what its position says.
      for (const [i, t] of launched.entries()) await books.expectTokensEqualChain({ tokenId: tokens[i]!, address: t.address! }, WALLETS.map((w) => w.address));
      // The burst traded on the pools, and every swap custody recorded that was mined is one booked trade.
      const poolTrades = await queryDatabase<{ n: number }>(databaseUrl, `select count(*) as n from trades where venue = 'uniswap-v2'`);
      expect(Number(poolTrades[0]!.n)).toBeGreaterThan(0);
      const unbooked = await queryDatabase<{ payment_id: string; tx_hash: string }>(
        databaseUrl,
        `select s.payment_id, s.tx_hash from pool_swaps s where s.tx_hash <> '' and (select count(*) from trades t where t.payment_id = s.payment_id) <> 1`,
      );
      for (const s of unbooked) {
        const receipt = await chain.getTransactionReceipt({ hash: s.tx_hash as Hex }).catch(() => null);
        expect({ swap: s.payment_id, status: receipt?.status ?? 'never mined' }).not.toEqual({ swap: s.payment_id, status: 'success' });
      }
      await books.expectEveryAppliedTradeOnce();
    } finally {
      await service.stop();
    }
  }, 240_000);
});
