/**
 * After a crash and a restart (test/e2e/crash.test.ts, pool-crash.test.ts): waiting until the
 * service has finished what the crash left, and holding the books to the chain — each wallet's
 * USDC, every applied trade booked once.
 */
import { createPublicClient, erc20Abi, http, type Hex, type PublicClient } from 'viem';
import { expect } from 'vitest';
import { USDC_ABI } from '../../src/adapters/chain/anvil/devnet-constants.js';
import { NETWORKS, TESTNET } from '../../src/domain/network.js';
import { queryDatabase } from './service-process.js';
import { pollUntil, waitFor } from './wait.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Each wallet runs `round` over and over — telling `done()` of each call that completed — until
 * `atLeast` calls are done; then (up to `jitterMs` later, at random) `kill()`: the calls in flight
 * are cut off wherever they are. A round that throws (the service gone, a call cut off) is counted
 * a failure; too many before the kill fail the test.
 */
export async function burstThenKill<W>(
  wallets: readonly W[],
  round: (wallet: W, index: number, done: () => void) => Promise<void>,
  o: { atLeast: number; jitterMs?: number; kill: () => Promise<void> },
): Promise<void> {
  let running = true;
  let completed = 0;
  let failures = 0;
  const burst = wallets.map(async (w, i) => {
    while (running) {
      try {
        await round(w, i, () => (completed += 1));
      } catch {
        failures += 1;
        if (running) await sleep(50);
      }
    }
  });
  try {
    await waitFor(
      `${o.atLeast} calls done`,
      () => {
        if (failures > 40) throw new Error(`the burst keeps failing before the crash (${completed} calls done)`);
        return completed >= o.atLeast;
      },
      { timeoutMs: 60_000, stepMs: 25 },
    );
  } catch (e) {
    running = false;
    throw e;
  }
  if (o.jitterMs) await sleep(Math.random() * o.jitterMs);
  await o.kill();
  running = false;
  await Promise.all(burst);
}

/** What the devnet funds each demo wallet with. */
export const INITIAL_USDC = 10_000_000_000n;

/** The devnet's testnet chain (the devnet's second port). */
export const devnetChain = (devnetPort: number): PublicClient => createPublicClient({ transport: http(`http://127.0.0.1:${devnetPort + 1}`) });

export const usdcOf = (chain: PublicClient, wallet: string) =>
  chain.readContract({ address: NETWORKS[TESTNET].usdc, abi: USDC_ABI, functionName: 'balanceOf', args: [wallet as Hex] }) as Promise<bigint>;

type Books = {
  payments: { payer: string; amount: string; state: string; nonce_lower: string }[];
  payouts: { wallet: string; amount: string; state: string }[];
};

export function crashBooks(databaseUrl: string, chain: PublicClient) {
  const rows = async (): Promise<Books> => ({
    payments: await queryDatabase(databaseUrl, `select payer, amount, state, nonce_lower from payments where network = '${TESTNET}'`),
    payouts: await queryDatabase(databaseUrl, `select wallet, amount, state from payouts where network = '${TESTNET}'`),
  });
  // A settlement the crash cut off before it reached the chain stays SETTLING until its
  // authorization expires (the FAILED rule): it must then be unused on chain.
  const authorizationUsed = (payer: string, nonce: string) =>
    chain.readContract({ address: NETWORKS[TESTNET].usdc, abi: USDC_ABI, functionName: 'authorizationState', args: [payer as Hex, nonce as Hex] }) as Promise<boolean>;
  const unfinished = async (b: Books) => {
    const left = b.payments.filter((p) => ['VERIFIED', 'SETTLED'].includes(p.state)).length + b.payouts.filter((p) => p.state !== 'CONFIRMED').length;
    let usedButSettling = 0;
    for (const p of b.payments.filter((x) => x.state === 'SETTLING')) if (await authorizationUsed(p.payer, p.nonce_lower)) usedButSettling += 1;
    return left + usedButSettling;
  };
  const count = async (sql: string) => Number((await queryDatabase<{ n: number }>(databaseUrl, sql))[0]!.n);
  // Shares at or over the threshold that no payout has claimed yet: the earnings payer owes them.
  const unpaidShares = async () =>
    (await queryDatabase<{ amount: string }>(databaseUrl, `select sum(amount) as amount from earnings where payout_id is null group by wallet_lower`)).filter(
      (r) => BigInt(String(r.amount)) >= 10_000n,
    ).length;
  const deliveriesLeft = async () =>
    (await count(`select count(*) as n from deliveries where state <> 'CONFIRMED'`)) + (await count(`select count(*) as n from deployments where state <> 'CONFIRMED'`));
  let books: Books | null = null;

  return {
    unpaidShares,
    deliveriesLeft,
    /** Waits (up to 90 s) for the reconciler, the payout and delivery workers to finish what the crash left; then nothing is. */
    async settled(): Promise<Books> {
      await pollUntil(
        async () => {
          books = await rows();
          return (await unfinished(books)) + (await deliveriesLeft()) + (await unpaidShares()) === 0;
        },
        { timeoutMs: 90_000, stepMs: 250 },
      );
      books ??= await rows(); // (read by the condition already: this only tells the type checker)
      expect(books.payouts.filter((p) => p.state !== 'CONFIRMED')).toEqual([]);
      expect(books.payments.filter((p) => ['VERIFIED', 'SETTLED'].includes(p.state))).toEqual([]);
      expect(await unfinished(books)).toBe(0);
      expect(await deliveriesLeft()).toBe(0);
      expect(await unpaidShares()).toBe(0);
      return books;
    },
    /** What each wallet was charged (applied and refunded payments) and paid out, as the settled books say. */
    charged: (wallet: string) =>
      books!.payments.filter((p) => p.payer.toLowerCase() === wallet.toLowerCase() && ['APPLIED', 'REFUNDED'].includes(p.state)).reduce((s, p) => s + BigInt(p.amount), 0n),
    paidOut: (wallet: string) => books!.payouts.filter((p) => p.wallet.toLowerCase() === wallet.toLowerCase()).reduce((s, p) => s + BigInt(p.amount), 0n),
    /** Every wallet's USDC on chain is what the devnet gave it, less what it was charged, plus what it was paid. */
    async expectUsdcEqualsChain(wallets: readonly string[]): Promise<void> {
      for (const w of wallets) {
        expect({ wallet: w, usdc: await usdcOf(chain, w) }).toEqual({ wallet: w, usdc: INITIAL_USDC - this.charged(w) + this.paidOut(w) });
      }
    },
    /** Every wallet holds on chain exactly what its position in `token` says; resolves with what they hold together. */
    async expectTokensEqualChain(token: { tokenId: string; address: string }, wallets: readonly string[]): Promise<bigint> {
      const positions = await queryDatabase<{ wallet: string; balance: string }>(
        databaseUrl,
        `select wallet, balance from positions where network = '${TESTNET}' and token_id = '${token.tokenId}'`,
      );
      let held = 0n;
      for (const w of wallets) {
        const ledger = BigInt(positions.find((p) => p.wallet.toLowerCase() === w.toLowerCase())?.balance ?? 0);
        const onChain = await chain.readContract({ address: token.address as Hex, abi: erc20Abi, functionName: 'balanceOf', args: [w as Hex] });
        expect({ token: token.tokenId, wallet: w, onChain }).toEqual({ token: token.tokenId, wallet: w, onChain: ledger });
        held += ledger;
      }
      return held;
    },
    /** Every applied trade is in the ledger exactly once. */
    async expectEveryAppliedTradeOnce(): Promise<void> {
      expect(
        await count(
          `select count(*) as n from payments p where p.state = 'APPLIED' and p.resource <> 'token_create'
             and (select count(*) from trades t where t.payment_id = p.payment_id) <> 1`,
        ),
      ).toBe(0);
    },
  };
}
