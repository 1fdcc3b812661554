/**
 * Hostile input to every free read and every paid call (issue 51, point 4), on both databases:
 * every path parameter, query parameter and body field of the catalogue replaced in turn by what a
 * client could send — U+0000 (which PostgreSQL cannot store), unpaired surrogates, control
 * characters, exponents, signs, 100 digits, SQL and path tricks — and the probes that answered
 * 500 on PostgreSQL: `/tokens?q=%00`, cursors whose JSON holds `\u0000`, lookups by `pay_%00`.
 * Never a 5xx, never an error logged, never a payment taken; the probes are answered 400 naming the
 * field (a malformed id looked up: 404, as any unknown id).
 */
import type { Client } from '@modelcontextprotocol/client';
import type { PaymentPayload, PaymentRequired } from '@x402/core/types';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { FakeFacilitator } from '../../src/adapters/facilitator/fake/fake-facilitator.js';
import { PAYMENT_META, paymentRequiredOf } from '../../src/adapters/kit/mcp/x402-mcp.js';
import { MemoryLogger } from '../../src/adapters/logging/memory/memory-logger.js';
import { queryOf } from '../../src/adapters/http/koa/read-routes.js';
import { pathParams } from '../../src/app/kit/catalogue/operation.js';
import type { RunningService } from '../../src/bootstrap/compose.js';
import { testDatabases } from '../support/databases.js';
import { call, connectMcp, envelopeOf, payerFor } from '../support/mcp-client.js';
import { json, settle, ShiftableClock, startTestService } from '../support/service.js';
import { decodeBase64Json, devAccount, payingFetch } from '../support/x402-client.js';

const wallet = devAccount(8);
const ULID = '01JD0000000000000000000000';

/** What goes into a JSON body or an MCP tool's arguments as a string. */
const HOSTILE: string[] = [
  '\u0000',
  'a\u0000b',
  `tok_${ULID.slice(1)}\u0000`,
  '\ud800',
  'x\udfffy',
  '\u0001\u001b\u007f\u009f',
  '1e2',
  '+1',
  '-1',
  '0x10',
  ' 1',
  '',
  '9'.repeat(100),
  `${'9'.repeat(61)}.${'9'.repeat(18)}`,
  'ß',
  "' or 1=1 --",
  '%_\\',
  '../../../etc/passwd',
  '💥'.repeat(300),
];

/** The same in a URL: encoded where it can be, and raw percent sequences no UTF-8 decoder takes. */
const HOSTILE_IN_URL: string[] = [
  ...HOSTILE.filter((v) => !/\p{Cs}/u.test(v)).map(encodeURIComponent),
  '%00',
  '%ED%A0%80',
  '%FF',
  '%C0%80',
  '%E2%80%AE',
  '%25',
];

/** A cursor this service could have issued, but for its contents. */
const cursorOf = (key: unknown) => Buffer.from(JSON.stringify(key), 'utf8').toString('base64url');
const HOSTILE_CURSORS = [
  cursorOf({ k: '\u0000', id: '\u0000' }),
  cursorOf({ id: 'trd_\u0000' }),
  cursorOf({ id: 'cmt_\u0000' }),
  cursorOf({ k: `${'0'.repeat(78)}`, id: 'tok_\ud800' }),
  cursorOf({ k: 'x\u0001', id: 1 }),
  cursorOf(['\u0000']),
  cursorOf({ k: "' or 1=1 --", id: "' or 1=1 --" }),
];

describe.each(testDatabases('hostile'))('hostile input on %s', (_name, openStore) => {
  const clock = new ShiftableClock();
  const facilitator = new FakeFacilitator({ clock, defaultBalance: 10_000_000_000n });
  const logger = new MemoryLogger('error');
  let service: RunningService;
  let cleanup: () => Promise<void>;
  let agent: Client;
  let tokenId: string;

  beforeAll(async () => {
    const store = await openStore();
    cleanup = store.cleanup;
    service = await startTestService({ ports: { clock, facilitator, logger, uow: store.uow } });
    const created = await payingFetch(wallet)(`${service.url}/tokens`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-wallet-address': wallet.address },
      body: JSON.stringify({ name: 'Hostile', symbol: 'HOST' }),
    });
    tokenId = (await json(created)).data.tokenId;
    await settle(service);
    agent = await connectMcp(`${service.url}/mcp`);
  }, 60_000);

  afterAll(async () => {
    await agent?.close();
    await service?.stop();
    await cleanup?.();
  });

  let logged = 0;
  beforeEach(() => {
    logged = logger.lines.length;
  });
  /** The errors logged during this test. */
  const errors = () => logger.lines.slice(logged).filter((l) => l.level === 'error');
  const get = (path: string) => fetch(`${service.url}${path}`);
  const post = (path: string, body: unknown) =>
    fetch(`${service.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-wallet-address': wallet.address }, body: JSON.stringify(body) });

  async function answered(res: Response, what: string): Promise<{ status: number; body: any }> {
    const text = await res.text();
    expect(res.status, `${what} → ${res.status} ${text.slice(0, 300)}`).toBeLessThan(500);
    return { status: res.status, body: text.startsWith('{') ? JSON.parse(text) : text };
  }

  /** The field a 400 names. */
  const paths = (body: any): string[] => (body?.error?.details?.issues ?? []).map((i: { path: string }) => i.path);

  it('answers the probes that were a 500 on PostgreSQL: 400 naming the field, 404 for an id looked up', async () => {
    const bad = async (path: string, field: string) => {
      const { status, body } = await answered(await get(path), path);
      expect(status, path).toBe(400);
      expect(body.error.code, path).toBe('VALIDATION_ERROR');
      expect(paths(body), path).toContain(field);
    };
    const unknown = async (path: string) => {
      const { status, body } = await answered(await get(path), path);
      expect(status, path).toBe(404);
      expect(body.error.code, path).toBe('NOT_FOUND');
    };
    await bad('/tokens?q=%00', 'q');
    await bad('/tokens?q=a%01b', 'q');
    await bad(`/tokens?q=${encodeURIComponent('a\u001b[31m')}`, 'q');
    await bad(`/tokens?cursor=${cursorOf({ k: '\u0000', id: 'tok_x' })}`, 'cursor');
    await bad(`/tokens?sort=marketCap&cursor=${cursorOf({ k: '1', id: 'tok_\u0000' })}`, 'cursor');
    await bad(`/api/tokens/${tokenId}/trades?cursor=${cursorOf({ id: 'trd_\u0000' })}`, 'cursor');
    await bad(`/tokens/${tokenId}/comments?cursor=${cursorOf({ id: 'cmt_\u0000' })}`, 'cursor');
    await bad(`/positions?wallet=${wallet.address}%00`, 'wallet');
    await unknown('/api/payments/pay_%00');
    await unknown('/api/orders/ord_%00');
    await unknown('/api/payouts/%00');
    await unknown('/api/deliveries/%00');
    await unknown(`/api/payments/pay_${ULID}`);
    // The routes beside the catalogue.
    await bad('/api/tokens/tok_%00/metadata.json', 'id');
    await bad('/api/events?tokenId=tok_%00', 'tokenId');
    expect((await answered(await get('/images/%00.webp'), 'image')).status).toBe(404);
    expect((await answered(await post('/entrypoints/%00', {}), 'entrypoint')).status).toBe(404);
    // A body of a free post and of a paid call, and an MCP tool's arguments: the same rule.
    const cancel = await answered(await post(`/api/orders/ord_${ULID}/cancel`, { signature: '\u0000' }), 'cancel_order');
    expect(cancel.status).toBe(400);
    expect(paths(cancel.body)).toEqual(['signature']);
    const pledgeCancel = await answered(await post('/api/pledges/pld_%00/cancel', {}), 'cancel_pledge');
    expect(pledgeCancel.status).toBe(400);
    for (const [field, value] of [
      ['name', 'a\u0000b'],
      ['description', 'x\u0000'],
      ['description', '\ud800'],
      ['imageUrl', 'https://example.com/\u0000.png'],
      ['website', 'https://example.com/\ud800'],
      ['twitter', '\u0000'],
    ] as const) {
      const { status, body } = await answered(await post('/tokens', { name: 'Fine', symbol: 'FINE', [field]: value }), `create ${field}`);
      expect(status, field).toBe(400);
      expect(paths(body), field).toContain(field);
    }
    // A comment's text has a code of its own for these (docs/api.md "Comments").
    for (const text of ['hi\u0000there', 'x\ud800']) {
      const comment = await answered(await post('/entrypoints/token_comment', { tokenId, text }), 'comment');
      expect(comment.status).toBe(400);
      expect(comment.body.error).toMatchObject({ code: 'COMMENT_CONTROL_CHARACTER', details: { field: 'text' } });
    }
    const viaMcp = envelopeOf(await call(agent, 'list_tokens', { q: '\u0000' }));
    expect(viaMcp.error).toMatchObject({ code: 'VALIDATION_ERROR', details: { issues: [{ path: 'q' }] } });
    const lookupViaMcp = envelopeOf(await call(agent, 'get_payment', { paymentId: 'pay_\u0000' }));
    expect(lookupViaMcp.error.code).toBe('VALIDATION_ERROR');
    expect(errors()).toEqual([]);
  });

  it('every free read: any hostile path or query parameter is never a 5xx and logs no error', async () => {
    const valid: Record<string, string> = {
      tokenId,
      wallet: wallet.address,
      address: wallet.address,
      creator: wallet.address,
      usdAmount: '5',
      tokens: '1000',
      side: 'buy',
      kind: 'limit_buy',
      expiresAt: new Date(Date.now() + 86_400_000).toISOString(),
      paymentId: `pay_${ULID}`,
      deliveryId: `dlv_${ULID}`,
      payoutId: `pout_${ULID}`,
      orderId: `ord_${ULID}`,
      commentId: `cmt_${ULID}`,
      pledgeId: `pld_${ULID}`,
    };
    let sent = 0;
    for (const op of service.application.reads) {
      if (op.http.method === 'post') continue;
      const params = pathParams(op.http);
      const query = queryOf(op);
      const required = query ? ((query.toJSONSchema({ io: 'input' }) as { required?: string[] }).required ?? []) : [];
      const fields = query ? Object.keys(query.shape) : [];
      const url = (path: Record<string, string>, q: Record<string, string>) => {
        let p = op.http.path;
        for (const [name, field] of params) p = p.replace(`:${name}`, path[field] ?? encodeURIComponent(valid[field] ?? 'x'));
        const qs = Object.entries(q).map(([k, v]) => `${k}=${v}`);
        return qs.length > 0 ? `${p}?${qs.join('&')}` : p;
      };
      const base = Object.fromEntries(required.map((f) => [f, encodeURIComponent(valid[f] ?? 'x')]));
      for (const value of HOSTILE_IN_URL) {
        for (const [, field] of params) {
          await answered(await get(url({ [field]: value }, base)), `${op.operation} ${field}=${value}`);
          sent++;
        }
        for (const field of fields) {
          await answered(await get(url({}, { ...base, [field]: value })), `${op.operation} ?${field}=${value}`);
          sent++;
        }
      }
      for (const cursor of fields.includes('cursor') ? HOSTILE_CURSORS : []) {
        const { status, body } = await answered(await get(url({}, { ...base, cursor })), `${op.operation} cursor`);
        expect(status, `${op.operation} ${Buffer.from(cursor, 'base64url').toString()}`).toBe(400);
        expect(paths(body)).toEqual(['cursor']);
      }
    }
    expect(sent).toBeGreaterThan(500);
    expect(errors()).toEqual([]);
  }, 120_000);

  it('every paid call and free post: any hostile body field is never a 5xx, logs no error and takes no payment', async () => {
    const authorization = { from: wallet.address, to: wallet.address, value: '1', validAfter: '0', validBefore: '9999999999', nonce: `0x${'1'.repeat(64)}`, signature: `0x${'2'.repeat(130)}` };
    const bodies: Record<string, Record<string, unknown>> = {
      token_create: {
        name: 'Fine',
        symbol: 'FINE',
        description: 'd',
        imageUrl: 'https://example.com/a.png',
        website: 'https://example.com',
        twitter: 'x',
        telegram: 'telegram',
        initialBuyUsd: '1',
        feeMode: 'creator',
        creatorSplits: [{ wallet: wallet.address, bps: 10_000 }],
        vesting: { cliffSeconds: 60, durationSeconds: 60 },
      },
      token_buy_usd: { tokenId, usdAmount: '5', minTokensOut: '1' },
      token_buy_tokens: { tokenId, tokens: '1000000', maxUsd: '5' },
      token_buy_quote: { quoteId: `qte_${ULID}` },
      token_sell: { tokenId, tokens: '1', minUsdOut: '0', tokenAuthorization: authorization },
      token_info: { tokenId },
      token_comment: { tokenId, text: 'hello', replyTo: `cmt_${ULID}` },
      token_image: { tokenId, image: 'iVBORw0KGgo=' },
      token_pledge: { tokenId, usdAmount: '5', authorization },
      order_place: { tokenId, kind: 'take_profit', tokens: '1', triggerPriceUsd: '1', minUsdOut: '0', expiresAt: new Date(Date.now() + 86_400_000).toISOString(), authorization },
    };
    const posts: Record<string, [string, Record<string, unknown>]> = {
      cancel_pledge: [`/api/pledges/pld_${ULID}/cancel`, { signature: `0x${'2'.repeat(130)}` }],
      cancel_order: [`/api/orders/ord_${ULID}/cancel`, { signature: `0x${'2'.repeat(130)}` }],
      hide_comment: [`/tokens/${tokenId}/comments/cmt_${ULID}/hide`, {}],
      set_creator_splits: [`/tokens/${tokenId}/splits`, { creatorSplits: [{ wallet: wallet.address, bps: 10_000 }] }],
    };
    const settled = facilitator.settled.length;
    const variants = (body: Record<string, unknown>) =>
      Object.entries(body).flatMap(([field, v]) =>
        v !== null && typeof v === 'object'
          ? Object.keys(v).flatMap((inner) => HOSTILE.map((h) => ({ ...body, [field]: { ...(v as object), [inner]: h } })))
          : HOSTILE.map((h) => ({ ...body, [field]: h })),
      );
    for (const [name, entry] of service.application.entrypoints) {
      // An entrypoint given no body above is sent its discovery example's (every entrypoint has one), on this token.
      const example = entry.example.input;
      const body = bodies[name] ?? (example && ('tokenId' in example ? { ...example, tokenId } : example));
      expect(body, `a body for ${name}`).toBeDefined();
      for (const variant of variants(body!)) await answered(await post(`/entrypoints/${name}`, variant), `${name} ${JSON.stringify(variant).slice(0, 200)}`);
    }
    for (const op of service.application.reads.filter((r) => r.http.method === 'post')) {
      const [path, body] = posts[op.operation] ?? [];
      expect(path, `a request for ${op.operation}`).toBeDefined();
      for (const variant of [...variants(body!), ...HOSTILE.map((h) => ({ ...body, [h]: 1 }))]) await answered(await post(path!, variant), `${op.operation} ${JSON.stringify(variant)}`);
    }
    expect(facilitator.settled.length).toBe(settled);
    expect(errors()).toEqual([]);
  }, 120_000);

  it('refuses, before any 402, an amount or price past what both databases store or what makes sense, naming the field', async () => {
    const settled = facilitator.settled.length;
    const refused = async (path: string, body: Record<string, unknown>, field: string) => {
      // The paying client pays any 402: a 400 here means nothing was asked for, nothing taken.
      const res = await payingFetch(wallet)(`${service.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-wallet-address': wallet.address }, body: JSON.stringify(body) });
      const { status, body: answer } = await answered(res, `${path} ${field}`);
      expect(status, `${field}: ${JSON.stringify(answer).slice(0, 300)}`).toBe(400);
      expect(paths(answer), field).toContain(field);
    };
    const authorization = { from: wallet.address, to: wallet.address, value: '1', validAfter: '0', validBefore: '9999999999', nonce: `0x${'1'.repeat(64)}`, signature: `0x${'2'.repeat(130)}` };
    const expiresAt = new Date(Date.now() + 86_400_000).toISOString();
    const order = (over: Record<string, unknown>) => ({ tokenId, kind: 'take_profit', tokens: '1', triggerPriceUsd: '0.01', expiresAt, authorization, ...over });
    // What was charged, then failed its insert on PostgreSQL with "numeric field overflow" (issue 51).
    for (const digits of [61, 79, 100]) {
      await refused('/entrypoints/order_place', order({ triggerPriceUsd: '9'.repeat(digits) }), 'triggerPriceUsd');
      await refused('/entrypoints/order_place', order({ minUsdOut: '9'.repeat(digits) }), 'minUsdOut');
      await refused('/entrypoints/order_place', order({ kind: 'limit_buy', tokens: undefined, usdAmount: '5', minTokensOut: '9'.repeat(digits) }), 'minTokensOut');
    }
    await refused('/entrypoints/order_place', order({ triggerPriceUsd: `${'9'.repeat(42)}.${'9'.repeat(18)}` }), 'triggerPriceUsd');
    await refused('/tokens', { name: 'Capped', symbol: 'CAP', launch: { mode: 'fair', goalUsd: '100', durationSeconds: 600, maxPerWalletUsd: '9'.repeat(100) } }, 'launch.maxPerWalletUsd');
    // Within what the columns hold, but past what the token or the curve could ever give.
    await refused('/entrypoints/order_place', order({ triggerPriceUsd: '1000.000000000000000001' }), 'triggerPriceUsd');
    await refused('/tokens', { name: 'Capped', symbol: 'CAP', launch: { mode: 'fair', goalUsd: '100', durationSeconds: 600, maxPerWalletUsd: '1000000' } }, 'launch.maxPerWalletUsd');
    // Every USD amount at most $10^12, every token amount below 2^256 units.
    await refused('/entrypoints/token_buy_usd', { tokenId, usdAmount: '1000000000000.000001' }, 'usdAmount');
    await refused('/entrypoints/token_buy_usd', { tokenId, usdAmount: '5', minTokensOut: '9'.repeat(60) }, 'minTokensOut');
    await refused('/entrypoints/token_buy_tokens', { tokenId, tokens: '1000000', maxUsd: '9'.repeat(40) }, 'maxUsd');
    await refused('/tokens', { name: 'Big', symbol: 'BIG', initialBuyUsd: '9'.repeat(40) }, 'initialBuyUsd');
    expect(facilitator.settled.length).toBe(settled);
    expect(errors()).toEqual([]);
  });

  it('the read that prepares a pledge refuses what the pledge would: 0, 40 digits, below the least buy, the curve or more', async () => {
    const created = await payingFetch(wallet)(`${service.url}/tokens`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-wallet-address': wallet.address },
      body: JSON.stringify({ name: 'Fair', symbol: 'FAIR', launch: { mode: 'fair', goalUsd: '100', durationSeconds: 3600, maxPerWalletUsd: '50' } }),
    });
    const fair = (await json(created)).data.tokenId;
    const ask = (usdAmount: string) => get(`/api/tokens/${fair}/pledge-authorization?wallet=${wallet.address}&usdAmount=${usdAmount}`);
    for (const [usdAmount, status, code] of [
      ['0', 400, 'VALIDATION_ERROR'],
      ['0.000000', 400, 'VALIDATION_ERROR'],
      ['9'.repeat(40), 400, 'VALIDATION_ERROR'],
      ['0.001', 400, 'VALIDATION_ERROR'],
      ['1000000', 409, 'CURVE_CAPACITY_EXCEEDED'],
    ] as const) {
      const { status: got, body } = await answered(await ask(usdAmount), usdAmount);
      expect([got, body.error?.code], usdAmount).toEqual([status, code]);
      if (status === 400) expect(paths(body)).toEqual(['usdAmount']);
    }
    expect((await answered(await ask('50'), '50')).status).toBe(200);
    expect((await answered(await ask('60'), '60')).status).toBe(200); // over the cap: the pledge says so (409 PLEDGE_CAP_EXCEEDED)
    expect(errors()).toEqual([]);
  });

  it('a payment whose fields hold U+0000 or an unpaired surrogate is refused, never a 5xx, over HTTP and MCP', async () => {
    const body = { name: 'Hostile', symbol: 'HOST' };
    const required = decodeBase64Json<PaymentRequired>((await post('/tokens', body)).headers.get('payment-required'));
    const mcpRequired = paymentRequiredOf(await call(agent, 'create_token', body)) as PaymentRequired;
    const leaves = (value: unknown, path: string[] = []): string[][] =>
      value !== null && typeof value === 'object' ? Object.entries(value).flatMap(([k, v]) => leaves(v, [...path, k])) : [path];
    const withLeaf = (value: unknown, path: string[], leaf: string) => {
      const copy = structuredClone(value) as Record<string, any>;
      let at = copy;
      for (const key of path.slice(0, -1)) at = at[key];
      at[path.at(-1)!] = leaf;
      return copy;
    };
    const settled = facilitator.settled.length;
    const sample = await payerFor(wallet)(required);
    for (const path of leaves(sample)) {
      for (const leaf of ['\u0000', 'a\u0000', '\ud800']) {
        const payload = withLeaf(await payerFor(wallet)(required), path, leaf);
        const res = await fetch(`${service.url}/tokens`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'payment-signature': Buffer.from(JSON.stringify(payload), 'utf8').toString('base64') },
          body: JSON.stringify(body),
        });
        await answered(res, `${path.join('.')} = ${JSON.stringify(leaf)}`);
        const viaMcp = await call(agent, 'create_token', body, { [PAYMENT_META]: withLeaf(await payerFor(wallet)(mcpRequired), path, leaf) as unknown as PaymentPayload });
        if (viaMcp.isError) expect(envelopeOf(viaMcp).error.code, path.join('.')).not.toBe('INTERNAL_ERROR');
      }
    }
    // A field the service does not bind may leave a valid payment: each paid once at most.
    expect(facilitator.settled.length - settled).toBeLessThanOrEqual(leaves(sample).length * 6);
    expect(errors()).toEqual([]);
  }, 120_000);
});
