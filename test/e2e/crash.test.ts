/**
 * A crash of everything (docs/payments.md): the service and both devnet chains are killed together with
 * kill -9 in the middle of a burst of paid buys and sells, then started again on the same data.
 * Afterwards, for every wallet, the USDC the chain shows equals what the books say — on SQLite
 * (the `npm start` default) and on PostgreSQL.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createPublicClient, erc20Abi, http, type Hex } from 'viem';
import { afterAll, describe, expect, it } from 'vitest';
import { USDC_ABI } from '../../src/adapters/chain/anvil/devnet-constants.js';
import { NETWORKS, TESTNET } from '../../src/domain/network.js';
import { dropSchema, POSTGRES_URL } from '../support/postgres.js';
import { withoutServices } from '../support/services.js';
import { queryDatabase, serviceProcessEnv, startServiceProcess, type ServiceProcess } from '../support/service-process.js';
import { signedSellBody } from '../support/onchain.js';
import { devAccount, payingFetch } from '../support/x402-client.js';

const TREASURY = '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266';
const WALLETS = [5, 6, 7, 8].map(devAccount);
const INITIAL = 10_000_000_000n; // what the devnet funds each demo wallet with

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
    const chain = createPublicClient({ transport: http(`http://127.0.0.1:${devnetPort + 1}`) });
    const usdc = (wallet: string) =>
      chain.readContract({ address: NETWORKS[TESTNET].usdc, abi: USDC_ABI, functionName: 'balanceOf', args: [wallet as Hex] }) as Promise<bigint>;
    const treasuryBefore = await usdc(TREASURY);

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
    let running = true;
    let completed = 0;
    let failures = 0;
    const burst = WALLETS.map(async (w, i) => {
      while (running) {
        try {
          const buy = await call(w, '/entrypoints/token_buy_usd', { tokenId: tokens[i], usdAmount: '1.5' });
          const bought = ((await buy.json()) as { data?: { tokensReceived?: string } }).data;
          completed += 1;
          // Sells tokens already delivered: one signed before its token is deployed is refused
          // (TOKEN_NOT_DEPLOYED) before any payment, and the loop goes on buying.
          if (bought?.tokensReceived) {
            const sell = await signedSellBody(service.url, w, tokens[i]!, '1000').catch(() => undefined);
            if (sell) await call(w, '/entrypoints/token_sell', sell);
            completed += 1;
          }
        } catch {
          failures += 1; // the service is gone (or the call was cut off by the crash)
          if (running) await new Promise((r) => setTimeout(r, 50));
        }
      }
    });
    while (completed < 12) {
      if (failures > 40) throw new Error(`the burst keeps failing before the crash (${completed} calls done)`);
      await new Promise((r) => setTimeout(r, 25));
    }
    await service.killAll();
    running = false;
    await Promise.all(burst);

    service = await startServiceProcess(env);
    // The reconciler and the payout worker finish what the crash left.
    const rows = async () => ({
      payments: await queryDatabase<{ payer: string; amount: string; state: string; nonce_lower: string }>(
        databaseUrl,
        `select payer, amount, state, nonce_lower from payments where network = '${TESTNET}'`,
      ),
      payouts: await queryDatabase<{ wallet: string; amount: string; state: string }>(
        databaseUrl,
        `select wallet, amount, state from payouts where network = '${TESTNET}'`,
      ),
    });
    // A settlement the crash cut off before it reached the chain stays SETTLING until its
    // authorization expires (the FAILED rule): it must then be unused on chain.
    const authorizationUsed = (payer: string, nonce: string) =>
      chain.readContract({
        address: NETWORKS[TESTNET].usdc,
        abi: USDC_ABI,
        functionName: 'authorizationState',
        args: [payer as Hex, nonce as Hex],
      }) as Promise<boolean>;
    const unfinished = async (b: Awaited<ReturnType<typeof rows>>) => {
      const left = b.payments.filter((p) => ['VERIFIED', 'SETTLED'].includes(p.state)).length + b.payouts.filter((p) => p.state !== 'CONFIRMED').length;
      let usedButSettling = 0;
      for (const p of b.payments.filter((x) => x.state === 'SETTLING')) if (await authorizationUsed(p.payer, p.nonce_lower)) usedButSettling += 1;
      return left + usedButSettling;
    };
    // Shares at or over the threshold that no payout has claimed yet: the earnings payer owes them.
    const unpaidShares = async () =>
      (await queryDatabase<{ amount: string }>(databaseUrl, `select sum(amount) as amount from earnings where payout_id is null group by wallet_lower`)).filter(
        (r) => BigInt(String(r.amount)) >= 10_000n,
      ).length;
    let books = await rows();
    const deliveriesLeft = async () =>
      Number((await queryDatabase<{ n: number }>(databaseUrl, `select count(*) as n from deliveries where state <> 'CONFIRMED'`))[0]!.n) +
      Number((await queryDatabase<{ n: number }>(databaseUrl, `select count(*) as n from deployments where state <> 'CONFIRMED'`))[0]!.n);
    for (let i = 0; i < 240 && (await unfinished(books)) + (await deliveriesLeft()) + (await unpaidShares()) > 0; i++) {
      await new Promise((r) => setTimeout(r, 250));
      books = await rows();
    }
    expect(books.payouts.filter((p) => p.state !== 'CONFIRMED')).toEqual([]);
    expect(books.payments.filter((p) => ['VERIFIED', 'SETTLED'].includes(p.state))).toEqual([]);
    expect(await unfinished(books)).toBe(0);
    expect(books.payments.length).toBeGreaterThan(WALLETS.length * 2);

    const charged = (wallet: string) =>
      books.payments
        .filter((p) => p.payer.toLowerCase() === wallet.toLowerCase() && ['APPLIED', 'REFUNDED'].includes(p.state))
        .reduce((s, p) => s + BigInt(p.amount), 0n);
    const paidOut = (wallet: string) =>
      books.payouts.filter((p) => p.wallet.toLowerCase() === wallet.toLowerCase()).reduce((s, p) => s + BigInt(p.amount), 0n);
    for (const w of WALLETS) {
      expect({ wallet: w.address, usdc: await usdc(w.address) }).toEqual({ wallet: w.address, usdc: INITIAL - charged(w.address) + paidOut(w.address) });
    }
    const allCharged = WALLETS.reduce((s, w) => s + charged(w.address), 0n);
    const allPaidOut = WALLETS.reduce((s, w) => s + paidOut(w.address), 0n);
    expect(await usdc(TREASURY)).toBe(treasuryBefore + allCharged - allPaidOut);

    // Every creator share was paid by exactly one payout, for exactly what it claimed.
    expect(await unpaidShares()).toBe(0);
    const earningsPayouts = await queryDatabase<{ payout_id: string; amount: string; claimed: string }>(
      databaseUrl,
      `select p.payout_id, p.amount, (select sum(e.amount) from earnings e where e.payout_id = p.payout_id) as claimed
       from payouts p where p.reason = 'creator_fee'`,
    );
    expect(earningsPayouts.length).toBeGreaterThan(0);
    for (const p of earningsPayouts) expect({ payout: p.payout_id, claimed: BigInt(String(p.claimed)) }).toEqual({ payout: p.payout_id, claimed: BigInt(String(p.amount)) });

    // Tokens: every wallet holds on chain exactly what the ledger says it holds, and custody the rest.
    expect(await deliveriesLeft()).toBe(0);
    const launched = await queryDatabase<{ token_id: string; address: string }>(databaseUrl, `select token_id, address from tokens where network = '${TESTNET}'`);
    expect(launched).toHaveLength(WALLETS.length);
    const positions = await queryDatabase<{ wallet: string; token_id: string; balance: string }>(databaseUrl, `select wallet, token_id, balance from positions where network = '${TESTNET}'`);
    const erc20 = (address: string, owner: string) =>
      chain.readContract({ address: address as Hex, abi: erc20Abi, functionName: 'balanceOf', args: [owner as Hex] });
    for (const t of launched) {
      let held = 0n;
      for (const w of WALLETS) {
        const ledger = BigInt(positions.find((p) => p.token_id === t.token_id && p.wallet.toLowerCase() === w.address.toLowerCase())?.balance ?? 0);
        expect({ token: t.token_id, wallet: w.address, onChain: await erc20(t.address, w.address) }).toEqual({ token: t.token_id, wallet: w.address, onChain: ledger });
        held += ledger;
      }
      expect(await erc20(t.address, TREASURY)).toBe(1_000_000_000n * 10n ** 18n - held);
    }

    // Every applied trade is in the ledger exactly once.
    const applied = await queryDatabase<{ n: number }>(
      databaseUrl,
      `select count(*) as n from payments p where p.state = 'APPLIED' and p.resource <> 'token_create'
         and (select count(*) from trades t where t.payment_id = p.payment_id) <> 1`,
    );
    expect(Number(applied[0]!.n)).toBe(0);
    await service.stop();
  }, 180_000);
});
