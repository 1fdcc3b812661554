/**
 * The statement budget of a paid trade (decision 0051): one paid `token_buy_usd` and one paid
 * `token_sell`, each end to end over HTTP — the 402, then the paid request — on SQLite and on
 * PostgreSQL, with every statement the units of work send counted (begin and commit included);
 * and a `token_buy_usd` paid by a batch-settlement voucher (the official client's, on a channel
 * already funded: no deposit with it), docs/performance.md "Issue 54".
 * Counts, not times: a feature that adds a statement to the paid path fails here, and has to
 * take one away elsewhere or run after the trade's commit.
 */
import { BatchSettlementEvmScheme } from '@x402/evm/batch-settlement/client';
import { wrapFetchWithPaymentFromConfig } from '@x402/fetch';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningService } from '../../src/bootstrap/compose.js';
import { TESTNET } from '../../src/domain/network.js';
import type { UnitOfWork } from '../../src/ports/unit-of-work.js';
import { testDatabases } from '../support/databases.js';
import { signedSellBody } from '../support/onchain.js';
import { json, settle, startTestService } from '../support/service.js';
import { waitFor } from '../support/wait.js';
import { decodeBase64Json, devAccount, payingFetch, signPayment } from '../support/x402-client.js';

/**
 * Statements per paid trade, its 402 and its paid request apart (docs/performance.md lists each).
 * SQLite reads the trader's position with the token's lock; PostgreSQL cannot (decision 0051),
 * but sends the trade's writes — token, position, trade, fee shares, events, delivery or payout,
 * the payment's move — as one statement (decision 0055). The rules before and after the claim
 * read the token the 402 read, while the change feed vouches nothing changed it (decision 0057).
 */
type Budget = { challenge: number; paid: number };
/**
 * A voucher's buy is the buy's statements and three of its own: the channel read in admission, and
 * the begin and commit that hold its charge and the payment's move to SETTLED together (the exact
 * buy's two moves, VERIFIED and SETTLED, need none).
 */
const BUDGETS: Record<string, { buy: Budget; sell: Budget; voucherBuy: Budget }> = {
  SQLite: { buy: { challenge: 2, paid: 14 }, sell: { challenge: 3, paid: 19 }, voucherBuy: { challenge: 2, paid: 17 } },
  PostgreSQL: { buy: { challenge: 2, paid: 9 }, sell: { challenge: 3, paid: 14 }, voucherBuy: { challenge: 2, paid: 12 } },
};

const wallet = devAccount(6);

let counting: string[] | null = null;
/** The SQLite change feed's own reads of the event log's tail (every 50 ms, whatever the service does): not the paid path's. */
const FEED_TAIL = /^select (coalesce\(max\(id\), 0\) as id from events|id, token_id from events where id > \?)/;
// With the change feed, as the service runs: the rules before and after the claim read the token it vouches for (decision 0057).
const databases = testDatabases('budget', { onStatement: (sql) => (FEED_TAIL.test(sql) ? undefined : counting?.push(sql)) });

describe.each(databases)('statements per paid trade (%s)', (name, open) => {
  const BUDGET = BUDGETS[name]!;
  let service: RunningService;
  let uow: UnitOfWork;
  let cleanup: () => Promise<void>;
  let tokenId: string;

  const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
    fetch(`${service.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-wallet-address': wallet.address, ...headers }, body: JSON.stringify(body) });

  /** The statements of `fn`, as the units of work sent them. */
  async function count(fn: () => Promise<void>): Promise<string[]> {
    counting = [];
    try {
      await fn();
      return counting;
    } finally {
      counting = null;
    }
  }

  let markers = 0;
  /**
   * Until the change feed has told of every earlier commit: a marker event (of a token that is
   * not the one traded) committed now is told twice — at its commit, and again as the database
   * delivers it to every process (SQLite's tail read every 50 ms, PostgreSQL's notification),
   * in commit order — so once it is told the second time, every earlier commit has been.
   */
  async function feedCaughtUp(): Promise<void> {
    const marker = `tok_budget_marker_${(markers += 1)}`;
    const heard: (string | null)[] = [];
    const stop = uow.changeFeed!.subscribe((t) => heard.push(t));
    try {
      await uow.transaction((s) => s.events.append({ type: 'token.created', network: TESTNET, tokenId: marker, data: {}, createdAt: new Date(0) }));
      await waitFor(`the change feed to tell of ${marker} twice`, () => heard.filter((t) => t === marker).length >= 2);
    } finally {
      stop();
    }
  }

  /** The 402 and the paid request of one call, counted apart. */
  async function paidCall(path: string, body: unknown): Promise<{ challenge: string[]; paid: string[]; status: number }> {
    // The feed has told of every earlier commit: none arrives between the calls counted.
    await feedCaughtUp();
    let required: unknown;
    const challenge = await count(async () => {
      const res = await post(path, body);
      expect(res.status).toBe(402);
      required = decodeBase64Json(res.headers.get('payment-required'));
      await res.arrayBuffer();
    });
    const signature = await signPayment(wallet, required as never);
    let status = 0;
    const paid = await count(async () => {
      const res = await post(path, body, { 'payment-signature': signature });
      status = res.status;
      await res.arrayBuffer();
    });
    return { challenge, paid, status };
  }

  beforeAll(async () => {
    const opened = await open();
    cleanup = opened.cleanup;
    uow = opened.uow;
    service = await startTestService({ ports: { uow: opened.uow } });
    const created = await payingFetch(wallet)(`${service.url}/tokens`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-wallet-address': wallet.address },
      body: JSON.stringify({ name: 'Budget', symbol: 'BDGT' }),
    });
    tokenId = (await json(created)).data.tokenId;
    await settle(service);
    // One trade first: prepared statements, the position's first row.
    expect((await paidCall('/entrypoints/token_buy_usd', { tokenId, usdAmount: '5' })).status).toBe(200);
    await settle(service);
  });
  afterAll(async () => {
    await service?.stop();
    await cleanup?.();
  });

  it(`a paid token_buy_usd: at most ${BUDGET.buy.challenge} statements for its 402, ${BUDGET.buy.paid} for the paid request`, async () => {
    const buy = await paidCall('/entrypoints/token_buy_usd', { tokenId, usdAmount: '5' });
    expect(buy.status).toBe(200);
    console.info('paid buy: statements', { challenge: buy.challenge.length, paid: buy.paid.length });
    expect(buy.challenge.length, buy.challenge.join('\n')).toBeLessThanOrEqual(BUDGET.buy.challenge);
    expect(buy.paid.length, buy.paid.join('\n')).toBeLessThanOrEqual(BUDGET.buy.paid);
  });

  it(`a token_buy_usd paid by a batch-settlement voucher: at most ${BUDGET.voucherBuy.challenge} statements for its 402, ${BUDGET.voucherBuy.paid} for the paid request`, async () => {
    const batch = new BatchSettlementEvmScheme(wallet, { depositStrategy: (c) => BigInt(c.requestAmount) * 100n });
    // The official client's two round trips, their statements kept apart by whether a payment rides along.
    let split: { challenge: string[]; paid: string[] } | null = null;
    const splitting: typeof fetch = async (input, init) => {
      const paying = new Headers(init?.headers).has('payment-signature') || (input instanceof Request && input.headers.has('payment-signature'));
      const mine: string[] = [];
      counting = split ? mine : null;
      try {
        const res = await fetch(input, init);
        const body = await res.arrayBuffer();
        return new Response(body, { status: res.status, statusText: res.statusText, headers: res.headers });
      } finally {
        counting = null;
        split?.[paying ? 'paid' : 'challenge'].push(...mine);
      }
    };
    const paying = wrapFetchWithPaymentFromConfig(splitting, { schemes: [{ network: 'eip155:*', client: batch }], spendControls: false });
    const buy = () =>
      paying(`${service.url}/entrypoints/token_buy_usd`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-wallet-address': wallet.address },
        body: JSON.stringify({ tokenId, usdAmount: '5' }),
      });
    // The deposit's call, then a voucher's to warm its statements; the third is counted.
    for (let i = 0; i < 2; i++) {
      expect((await buy()).status).toBe(200);
      await settle(service);
    }
    await feedCaughtUp();
    split = { challenge: [], paid: [] };
    const res = await buy();
    const counted: { challenge: string[]; paid: string[] } = split;
    split = null;
    expect(res.status, await res.text()).toBe(200);
    console.info('voucher buy: statements', { challenge: counted.challenge.length, paid: counted.paid.length });
    expect(counted.challenge.length, counted.challenge.join('\n')).toBeLessThanOrEqual(BUDGET.voucherBuy.challenge);
    expect(counted.paid.length, counted.paid.join('\n')).toBeLessThanOrEqual(BUDGET.voucherBuy.paid);
  });

  it(`a paid token_sell: at most ${BUDGET.sell.challenge} statements for its 402, ${BUDGET.sell.paid} for the paid request`, async () => {
    const body = await signedSellBody(service.url, wallet, tokenId, '1000');
    const sell = await paidCall('/entrypoints/token_sell', body);
    expect(sell.status).toBe(200);
    console.info('paid sell: statements', { challenge: sell.challenge.length, paid: sell.paid.length });
    expect(sell.challenge.length, sell.challenge.join('\n')).toBeLessThanOrEqual(BUDGET.sell.challenge);
    expect(sell.paid.length, sell.paid.join('\n')).toBeLessThanOrEqual(BUDGET.sell.paid);
  });
});

