/**
 * One held authorization backs at most one open order or pledge, whatever arrives at once
 * (issue 51 point 8, docs/decisions/0067), through the HTTP service over fakes on SQLite and on
 * PostgreSQL: four `order_place` with one signed authorization sent at once, and one pledge
 * authorization sent at once to two raises and a limit buy — exactly one 201, the others 400
 * HELD_AUTHORIZATION_INVALID `used`, refused at their claim before their fee settles (charged
 * nothing); a rival that slips past the claim (a payment claimed by a version without holds) is
 * refused where the order is written and its settled fee refunded. And a wallet whose held USDC
 * would be spent by its own fee is refused before anything settles (point 11a).
 */
import type { PrivateKeyAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeFacilitator } from '../../src/adapters/facilitator/fake/fake-facilitator.js';
import { FakeNetworkDetector } from '../../src/adapters/network/fake/fake-network-detector.js';
import { FakeTokenIssuer } from '../../src/adapters/token/fake/fake-token-issuer.js';
import type { RunningService } from '../../src/bootstrap/compose.js';
import { stablecoin } from '../../src/app/held/usdc-authorization.js';
import { heldKeyOf } from '../../src/app/held/hold-authorization.js';
import { parseUsd } from '../../src/domain/money.js';
import { TESTNET } from '../../src/domain/network.js';
import type { UnitOfWork } from '../../src/ports/unit-of-work.js';
import { testDatabases } from '../support/databases.js';
import { json, settle, ShiftableClock, startTestService } from '../support/service.js';
import { decodeBase64Json, devAccount, payingFetch, signPayment } from '../support/x402-client.js';

const USDC = stablecoin(TESTNET, 'USDC');
const [creator, wallet, poor, rival] = [devAccount(5), devAccount(6), devAccount(7), devAccount(8)];

describe.each(testDatabases('heldonce'))('one held authorization, one order or pledge, on %s', (_name, openStore) => {
  const clock = new ShiftableClock();
  const facilitator = new FakeFacilitator({ clock, defaultBalance: 10_000_000_000n });
  const tokenIssuer = new FakeTokenIssuer({ clock });
  /** The payer's network, told as the fake tells it; `hold` keeps the next asker waiting (once) until released. */
  const detection = new FakeNetworkDetector({}, { clock });
  let hold: { reached: () => void; release: Promise<void> } | null = null;
  const detector = {
    detect: async (wallet: string) => {
      const held = hold;
      hold = null;
      if (held) {
        held.reached();
        await held.release;
      }
      return detection.detect(wallet);
    },
  };
  let service: RunningService;
  let uow: UnitOfWork;
  let cleanup: () => Promise<void>;
  let curve: string;
  let fair: [string, string];

  const post = (account: PrivateKeyAccount, path: string, body: unknown, headers: Record<string, string> = {}, f: typeof fetch = fetch) =>
    f(`${service.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-wallet-address': account.address, ...headers }, body: JSON.stringify(body) });
  const get = async (path: string) => json(await fetch(`${service.url}${path}`));

  /** The body's own x402 payment, signed against its 402 (each request a payment of its own). */
  async function paid(account: PrivateKeyAccount, path: string, body: unknown) {
    const challenge = await post(account, path, body);
    expect(challenge.status, JSON.stringify(await challenge.clone().json())).toBe(402);
    return { path, body, headers: { 'payment-signature': await signPayment(account, decodeBase64Json(challenge.headers.get('payment-required'))) } };
  }
  /**
   * The requests sent at once, each settlement held until every request has reached its own or
   * been answered — a chain's latency, made certain: every request that gets past its claim is
   * past it before any fee settles and any order is written.
   */
  async function sendAtOnce(account: PrivateKeyAccount, requests: Awaited<ReturnType<typeof paid>>[]) {
    let reached = 0;
    let open!: () => void;
    const gate = new Promise<void>((resolve) => (open = resolve));
    const count = () => (++reached === requests.length ? open() : undefined);
    const settleNow = facilitator.settle.bind(facilitator);
    facilitator.settle = async (...args) => {
      count();
      await gate;
      return settleNow(...args);
    };
    try {
      return await Promise.all(
        requests.map(async (r) => {
          const res = post(account, r.path, r.body, r.headers);
          void res.then(count, count); // answered without settling (a refusal)
          const answer = await res;
          return { path: r.path, status: answer.status, body: await json(answer) };
        }),
      );
    } finally {
      facilitator.settle = settleNow;
    }
  }

  async function signed(account: PrivateKeyAccount, typedData: any) {
    return account.signTypedData({
      domain: typedData.domain,
      types: typedData.types,
      primaryType: typedData.primaryType,
      message: { ...typedData.message, value: BigInt(typedData.message.value), validAfter: BigInt(typedData.message.validAfter), validBefore: BigInt(typedData.message.validBefore) },
    });
  }

  /** A limit buy's authorization of `usd` as the service serves it, signed by `account`. */
  async function orderAuthorization(account: PrivateKeyAccount, usd: string, expiresAt: string) {
    const served = await get(`/api/orders/authorization?wallet=${account.address}&tokenId=${curve}&kind=limit_buy&usdAmount=${usd}&expiresAt=${expiresAt}`);
    expect(served.data, JSON.stringify(served)).toBeDefined();
    return { ...served.data.authorization, signature: await signed(account, served.data.typedData) };
  }
  const limitBuy = (trigger: string, usd: string, expiresAt: string, authorization: unknown) => ({ tokenId: curve, kind: 'limit_buy', triggerPriceUsd: trigger, usdAmount: usd, expiresAt, authorization });
  const inAnHour = () => new Date(clock.now().getTime() + 3_600_000).toISOString();
  const settledBy = (account: PrivateKeyAccount) => facilitator.settled.filter((t) => t.from.toLowerCase() === account.address.toLowerCase()).length;
  const openOrdersOf = async (account: PrivateKeyAccount) => (await get(`/api/orders?wallet=${account.address}&state=OPEN`)).data.orders as { orderId: string }[];

  beforeAll(async () => {
    const store = await openStore();
    ({ uow, cleanup } = store);
    tokenIssuer.addStablecoin(TESTNET, USDC.address, USDC.name, USDC.version);
    for (const w of [wallet, rival]) tokenIssuer.mint(TESTNET, USDC.address, w.address, parseUsd('100'));
    tokenIssuer.mint(TESTNET, USDC.address, poor.address, parseUsd('5'));
    service = await startTestService({ ports: { clock, facilitator, uow, tokenIssuer, detector } });
    const create = async (body: Record<string, unknown>) => {
      const res = await post(creator, '/tokens', body, {}, payingFetch(creator));
      expect(res.status).toBe(201);
      return (await json(res)).data.tokenId as string;
    };
    curve = await create({ name: 'Held once', symbol: 'ONCE' });
    fair = [
      await create({ name: 'Fair one', symbol: 'FAIRA', launch: { mode: 'fair', goalUsd: '20', durationSeconds: 600 } }),
      await create({ name: 'Fair two', symbol: 'FAIRB', launch: { mode: 'fair', goalUsd: '20', durationSeconds: 600 } }),
    ];
    await settle(service); // deployed
  }, 60_000);

  afterAll(async () => {
    await service?.stop();
    await cleanup?.();
  });

  it('four order_place with one authorization at once: one 201, three refused `used` before their fee settled', async () => {
    const expiresAt = inAnHour();
    const authorization = await orderAuthorization(wallet, '5', expiresAt);
    const settledBefore = settledBy(wallet);
    const requests = [];
    for (const trigger of ['0.000001', '0.0000011', '0.0000012', '0.0000013']) {
      requests.push(await paid(wallet, '/entrypoints/order_place', limitBuy(trigger, '5', expiresAt, authorization)));
    }
    const answers = await sendAtOnce(wallet, requests);
    expect(answers.map((a) => a.status).sort()).toEqual([201, 400, 400, 400]);
    for (const a of answers.filter((x) => x.status === 400)) {
      expect(a.body.error).toMatchObject({ code: 'HELD_AUTHORIZATION_INVALID', details: { reason: 'used' } });
      expect(a.body.error.details.refund).toBeUndefined(); // never settled: nothing to refund
    }
    expect(settledBy(wallet) - settledBefore).toBe(1); // the winner's $0.01, once
    expect(await openOrdersOf(wallet)).toHaveLength(1);
  });

  it('one pledge authorization sent at once to two raises and a limit buy: one 201, two refused `used` before their fee settled', async () => {
    const served = (await get(`/api/tokens/${fair[0]}/pledge-authorization?wallet=${wallet.address}&usdAmount=5`)).data;
    const authorization = { ...served.authorization, signature: await signed(wallet, served.typedData) };
    const settledBefore = settledBy(wallet);
    const ordersBefore = (await openOrdersOf(wallet)).length;
    const answers = await sendAtOnce(wallet, [
      await paid(wallet, '/entrypoints/token_pledge', { tokenId: fair[0], usdAmount: '5', authorization }),
      await paid(wallet, '/entrypoints/token_pledge', { tokenId: fair[1], usdAmount: '5', authorization }),
      await paid(wallet, '/entrypoints/order_place', limitBuy('0.000001', '5', inAnHour(), authorization)),
    ]);
    expect(answers.map((a) => a.status).sort()).toEqual([201, 400, 400]);
    for (const a of answers.filter((x) => x.status === 400)) expect(a.body.error).toMatchObject({ code: 'HELD_AUTHORIZATION_INVALID', details: { reason: 'used' } });
    expect(settledBy(wallet) - settledBefore).toBe(1);
    const pledges = await Promise.all(fair.map(async (t) => (await get(`/api/tokens/${t}/raise`)).data.pledges as unknown[]));
    const orders = (await openOrdersOf(wallet)).length - ordersBefore;
    expect(pledges[0]!.length + pledges[1]!.length + orders).toBe(1);
  });

  it('the same payment sent again while it is being verified gets that payment’s answer, never `used` (which would send its client to sign a second order)', async () => {
    const expiresAt = inAnHour();
    const authorization = await orderAuthorization(wallet, '5', expiresAt);
    const request = await paid(wallet, '/entrypoints/order_place', limitBuy('0.0000014', '5', expiresAt, authorization));
    // No wallet hint: the copy asks the payer's network in its admission only, between its look for
    // an earlier payment (none yet) and its rules.
    const send = () => fetch(`${service.url}${request.path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...request.headers }, body: JSON.stringify(request.body) });
    let release!: () => void;
    const copyHeld = new Promise<void>((reached) => (hold = { reached, release: new Promise<void>((r) => (release = r)) }));
    const copy = send();
    await copyHeld;
    // Meanwhile the first is claimed and holds the authorization; its settlement waits.
    const settleNow = facilitator.settle.bind(facilitator);
    let settling!: () => void;
    const atSettlement = new Promise<void>((r) => (settling = r));
    facilitator.settle = async (...args) => {
      settling();
      return settleNow(...args);
    };
    const settledBefore = settledBy(wallet);
    try {
      const first = send();
      await atSettlement;
      release(); // the copy checks its rules now, the authorization held by the first payment
      const [a, b] = await Promise.all([first, copy]);
      const [bodyA, bodyB] = [await json(a), await json(b)];
      expect(a.status).toBe(201);
      expect(b.status, JSON.stringify(bodyB)).toBe(201);
      expect(bodyB.data.orderId).toBe(bodyA.data.orderId);
    } finally {
      facilitator.settle = settleNow;
    }
    expect(settledBy(wallet) - settledBefore).toBe(1);
  });

  it('a rival that slipped past the claim is refused where its order is written, and its settled fee refunded', async () => {
    const expiresAt = inAnHour();
    const authorization = await orderAuthorization(rival, '5', expiresAt);
    const key = heldKeyOf(TESTNET, 'USDC', authorization);
    const request = await paid(rival, '/entrypoints/order_place', limitBuy('0.0000011', '5', expiresAt, authorization));
    let first: { status: number; orderId: string } | undefined;
    const settleOnce = facilitator.settle.bind(facilitator);
    facilitator.settle = async (...args) => {
      facilitator.settle = settleOnce;
      // As if this payment had been claimed by a version without holds: it holds nothing, and
      // while it settles another order with the same authorization is placed.
      await uow.transaction(async (s) => s.heldAuthorizations.take(key, { kind: 'payment', id: 'pay_before_holds' }, await s.heldAuthorizations.holderOf(key)));
      const res = await post(rival, '/entrypoints/order_place', limitBuy('0.000001', '5', expiresAt, authorization), {}, payingFetch(rival));
      first = { status: res.status, orderId: (await json(res)).data?.orderId };
      return settleOnce(...args);
    };
    const settledBefore = settledBy(rival);
    const res = await post(rival, request.path, request.body, request.headers);
    const body = await json(res);
    expect(first?.status).toBe(201);
    expect(res.status).toBe(400);
    expect(body.error).toMatchObject({ code: 'HELD_AUTHORIZATION_INVALID', details: { reason: 'used', refund: { reason: 'refund', amount: '0.01' } } });
    expect(settledBy(rival) - settledBefore).toBe(2); // each fee settled once; the loser's is refunded
    const payment = (await get(`/api/payments/${body.error.details.paymentId}`)).data;
    expect(payment.state).toBe('REFUNDED');
    expect((await openOrdersOf(rival)).map((o) => o.orderId)).toEqual([first!.orderId]);
  });

  it('a wallet holding exactly $5.00 cannot place a $5 limit buy or pledge whose $0.01 it pays in USDC from the same balance: 409 before anything settles', async () => {
    const expiresAt = inAnHour();
    const settledBefore = settledBy(poor);
    const order = await paid(poor, '/entrypoints/order_place', limitBuy('0.000001', '5', expiresAt, await orderAuthorization(poor, '5', expiresAt)));
    const served = (await get(`/api/tokens/${fair[0]}/pledge-authorization?wallet=${poor.address}&usdAmount=5`)).data;
    const pledge = await paid(poor, '/entrypoints/token_pledge', { tokenId: fair[0], usdAmount: '5', authorization: { ...served.authorization, signature: await signed(poor, served.typedData) } });
    for (const r of [order, pledge]) {
      const res = await post(poor, r.path, r.body, r.headers);
      const body = await json(res);
      expect([res.status, body.error?.code], JSON.stringify(body)).toEqual([409, 'INSUFFICIENT_BALANCE']);
      expect(body.error.details).toMatchObject({ requested: '5.01', balance: '5' });
    }
    expect(settledBy(poor)).toBe(settledBefore);
    // $4.99 leaves room for the fee.
    const smaller = await post(poor, '/entrypoints/order_place', limitBuy('0.000001', '4.99', expiresAt, await orderAuthorization(poor, '4.99', expiresAt)), {}, payingFetch(poor));
    expect(smaller.status).toBe(201);
  });
});
