/**
 * Whether the books equal the chain (docs/operations.md, "What is where"), read straight from a
 * service's database and a devnet chain: every wallet's USDC and tokens on chain are what the
 * books say it paid, was paid and holds; the treasury holds the rest; every applied trade is in
 * the ledger once. `waitUntilFinished` waits for the workers to finish what is in flight first.
 */
import { erc20Abi, type Hex, type PublicClient } from 'viem';
import { expect } from 'vitest';
import { USDC_ABI } from '../../src/adapters/chain/anvil/devnet-constants.js';
import { NETWORKS, TESTNET } from '../../src/domain/network.js';
import { queryDatabase } from './service-process.js';
import { pollUntil } from './wait.js';

export const TREASURY = '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266';
const SUPPLY = 1_000_000_000n * 10n ** 18n;

export const usdcOf = (chain: PublicClient, wallet: string) =>
  chain.readContract({ address: NETWORKS[TESTNET].usdc, abi: USDC_ABI, functionName: 'balanceOf', args: [wallet as Hex] }) as Promise<bigint>;

interface Books {
  payments: { payer: string; amount: string; state: string; nonce_lower: string }[];
  payouts: { wallet: string; amount: string; state: string }[];
  /** USDC custody collected with held authorizations (executed limit buys, and refunded ones: their refund is a payout; fair launches' pledges, collected and maybe refunded). */
  collected: { wallet: string; amount: string }[];
}

async function books(databaseUrl: string): Promise<Books> {
  return {
    payments: await queryDatabase(databaseUrl, `select payer, amount, state, nonce_lower from payments where network = '${TESTNET}'`),
    payouts: await queryDatabase(databaseUrl, `select wallet, amount, state from payouts where network = '${TESTNET}'`),
    collected: [
      ...(await queryDatabase<{ wallet: string; amount: string }>(
        databaseUrl,
        `select wallet, usd_amount as amount from orders where network = '${TESTNET}' and kind = 'limit_buy' and (state = 'EXECUTED' or reason like 'refunded:%')`,
      )),
      ...(await queryDatabase<{ wallet: string; amount: string }>(databaseUrl, `select wallet, usd_amount as amount from pledges where network = '${TESTNET}' and state in ('COLLECTED', 'REFUNDED')`)),
    ],
  };
}

/** What is still in flight: payments to settle or apply, payouts, deliveries and deployments not confirmed, shares owed. */
async function unfinished(databaseUrl: string, chain: PublicClient): Promise<number> {
  const b = await books(databaseUrl);
  let left = b.payments.filter((p) => ['VERIFIED', 'SETTLED'].includes(p.state)).length + b.payouts.filter((p) => p.state !== 'CONFIRMED').length;
  // A settlement cut off before it reached the chain stays SETTLING until its authorization expires: it must then be unused.
  for (const p of b.payments.filter((x) => x.state === 'SETTLING')) {
    const used = (await chain.readContract({ address: NETWORKS[TESTNET].usdc, abi: USDC_ABI, functionName: 'authorizationState', args: [p.payer as Hex, p.nonce_lower as Hex] })) as boolean;
    if (used) left += 1;
  }
  const count = async (sql: string) => Number((await queryDatabase<{ n: number }>(databaseUrl, sql))[0]!.n);
  left += await count(`select count(*) as n from deliveries where state <> 'CONFIRMED'`);
  left += await count(`select count(*) as n from deployments where state <> 'CONFIRMED'`);
  left += await count(`select count(*) as n from custody_intents`);
  const owed = await queryDatabase<{ amount: string }>(databaseUrl, `select sum(amount) as amount from earnings where payout_id is null group by wallet_lower`);
  return left + owed.filter((r) => BigInt(String(r.amount)) >= 10_000n).length;
}

export async function waitUntilFinished(databaseUrl: string, chain: PublicClient, timeoutMs = 90_000): Promise<void> {
  const finished = await pollUntil(async () => (await unfinished(databaseUrl, chain)) === 0, { timeoutMs, stepMs: 250 });
  // Asked again only to say what is left: callers trading on meanwhile (several wallets at once) may have started more since the moment all was finished.
  if (!finished) expect(await unfinished(databaseUrl, chain)).toBe(0);
}

/** The books equal the chain for `wallets`, from their USDC before (and the treasury's) to every token they hold. */
export async function expectBooksEqualChain(args: {
  databaseUrl: string;
  chain: PublicClient;
  wallets: string[];
  usdcBefore: Map<string, bigint>;
  treasuryBefore: bigint;
}): Promise<void> {
  const { databaseUrl, chain, wallets } = args;
  const b = await books(databaseUrl);
  expect(b.payouts.filter((p) => p.state !== 'CONFIRMED')).toEqual([]);
  expect(b.payments.filter((p) => ['VERIFIED', 'SETTLED'].includes(p.state))).toEqual([]);
  const charged = (w: string) =>
    b.payments.filter((p) => p.payer.toLowerCase() === w.toLowerCase() && ['APPLIED', 'REFUNDED'].includes(p.state)).reduce((s, p) => s + BigInt(p.amount), 0n) +
    b.collected.filter((c) => c.wallet.toLowerCase() === w.toLowerCase()).reduce((s, c) => s + BigInt(c.amount), 0n);
  const paidOut = (w: string) => b.payouts.filter((p) => p.wallet.toLowerCase() === w.toLowerCase()).reduce((s, p) => s + BigInt(p.amount), 0n);
  for (const w of wallets) {
    expect({ wallet: w, usdc: await usdcOf(chain, w) }).toEqual({ wallet: w, usdc: args.usdcBefore.get(w)! - charged(w) + paidOut(w) });
  }
  // Custody, which collects held authorizations, is the treasury on the devnet.
  const allCharged = wallets.reduce((s, w) => s + charged(w), 0n);
  const allPaidOut = wallets.reduce((s, w) => s + paidOut(w), 0n);
  expect(await usdcOf(chain, TREASURY)).toBe(args.treasuryBefore + allCharged - allPaidOut);

  const launched = await queryDatabase<{ token_id: string; address: string }>(databaseUrl, `select token_id, address from tokens where network = '${TESTNET}'`);
  const positions = await queryDatabase<{ wallet: string; token_id: string; balance: string }>(databaseUrl, `select wallet, token_id, balance from positions where network = '${TESTNET}'`);
  const erc20 = (address: string, owner: string) => chain.readContract({ address: address as Hex, abi: erc20Abi, functionName: 'balanceOf', args: [owner as Hex] });
  for (const t of launched) {
    let held = 0n;
    for (const w of wallets) {
      const ledger = BigInt(positions.find((p) => p.token_id === t.token_id && p.wallet.toLowerCase() === w.toLowerCase())?.balance ?? 0);
      expect({ token: t.token_id, wallet: w, onChain: await erc20(t.address, w) }).toEqual({ token: t.token_id, wallet: w, onChain: ledger });
      held += ledger;
    }
    expect(await erc20(t.address, TREASURY)).toBe(SUPPLY - held);
  }
  const twice = await queryDatabase<{ n: number }>(
    databaseUrl,
    `select count(*) as n from payments p where p.state = 'APPLIED' and p.resource not in ('token_create', 'token_pledge', 'order_place')
       and (select count(*) from trades t where t.payment_id = p.payment_id) <> 1`,
  );
  expect(Number(twice[0]!.n)).toBe(0);
}
