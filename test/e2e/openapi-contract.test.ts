/**
 * The OpenAPI document as a contract (issue 55, decision 0075): requests to the real routes of a
 * running service (over fakes, as the other e2e tests start it), and every answer's status and body
 * checked against `/api/openapi.json` — the status must be documented for its route and method, the
 * media type listed, the body valid against the documented schema (the SDK's Ajv, JSON Schema
 * 2020-12). The routes come from the catalogue (each free read by one loop, each paid operation at
 * each of its paths) and from the document itself for the routes that are no operation; every one
 * is driven to its success and to the refusals a caller meets (a bad input, an unknown id, a body
 * too large or not JSON, a foreign origin, the free budget, a crawler's example), and the test ends
 * by checking that no route of the document went unasked.
 */
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/client/validators/ajv';
import type { JsonSchemaType } from '@modelcontextprotocol/client';
import { BatchSettlementEvmScheme } from '@x402/evm/batch-settlement/client';
import { createSIWxPayload, encodeSIWxHeader } from '@x402/extensions/sign-in-with-x';
import { wrapFetchWithPaymentFromConfig } from '@x402/fetch';
import type { PrivateKeyAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeFacilitator } from '../../src/adapters/facilitator/fake/fake-facilitator.js';
import { FakeTokenIssuer } from '../../src/adapters/token/fake/fake-token-issuer.js';
import type { RunningService } from '../../src/bootstrap/compose.js';
import { stablecoin } from '../../src/app/held/usdc-authorization.js';
import { pathParams, type AnyRead } from '../../src/app/kit/catalogue/operation.js';
import { entrypointPaths, type AnyEntrypoint } from '../../src/app/kit/catalogue/entrypoint.js';
import { IMAGE } from '../../src/app/kit/catalogue/example-fixtures.js';
import { queryOf } from '../../src/adapters/http/koa/read-routes.js';
import { cancelMessage } from '../../src/app/orders/order-reads.js';
import { cancelPledgeMessage } from '../../src/app/raises/pledge.js';
import { parseUsd } from '../../src/domain/money.js';
import type { RateLimiter } from '../../src/ports/rate-limiter.js';
import { TESTNET } from '../../src/domain/network.js';
import { bombPng, dataUrl, scanBombJpeg, SVG, TEXT_AS_PNG } from '../support/images.js';
import { json, settle, ShiftableClock, startTestService } from '../support/service.js';
import { decodeBase64Json, devAccount, payingFetch } from '../support/x402-client.js';

const USDC = stablecoin(TESTNET, 'USDC');
const [creator, buyer, stranger] = [devAccount(5), devAccount(6), devAccount(7)];
const UNKNOWN_TOKEN = 'tok_01M0000000000000000000000Z';
const FOREIGN = 'https://elsewhere.example';

type Doc = { paths: Record<string, Record<string, { responses: Record<string, any> }>>; components: { responses: Record<string, any> } };
type Route = `${string} ${string}`;

let service: RunningService;
let doc: Doc;
const clock = new ShiftableClock();
const validator = new AjvJsonSchemaValidator();
const validators = new Map<unknown, ReturnType<AjvJsonSchemaValidator['getValidator']>>();
/** What each route answered (`GET /tokens/{id}` → statuses), and every answer the document does not describe. */
const answered = new Map<Route, Set<number>>();
const violations: string[] = [];

/** The response the document gives for a route's status (its `$ref` followed). */
function documented(d: Doc, path: string, method: string, status: number): any {
  const response = d.paths[path]?.[method]?.responses?.[String(status)];
  if (response?.$ref) return d.components.responses[String(response.$ref).split('/').at(-1)!];
  return response;
}

/** One answer, checked against the document: its status for the route, its media type, its body. */
async function check(path: string, method: string, res: Response, d: Doc = doc): Promise<Response> {
  const route: Route = `${method.toUpperCase()} ${path}`;
  answered.set(route, (answered.get(route) ?? new Set()).add(res.status));
  const text = await res.clone().text();
  const where = `${route} → ${res.status}${text ? ` ${text.slice(0, 160)}` : ''}`;
  const response = documented(d, path, method, res.status);
  if (!response) {
    violations.push(`${where}: the status is not documented`);
    return res;
  }
  const type = (res.headers.get('content-type') ?? '').split(';')[0]!.trim();
  if (!response.content) {
    if (text !== '' && res.status !== 308) violations.push(`${where}: a body (${type}) the document does not describe`);
    return res;
  }
  const media = response.content[type];
  if (!media) {
    violations.push(`${where}: ${type || 'no media type'}, the document lists ${Object.keys(response.content).join(', ')}`);
    return res;
  }
  if (!/json$/.test(type)) return res;
  let validate = validators.get(media.schema);
  if (!validate) validators.set(media.schema, (validate = validator.getValidator(media.schema as JsonSchemaType)));
  const result = validate(JSON.parse(text));
  if (!result.valid) violations.push(`${where}: the body does not match the documented schema: ${result.errorMessage}`);
  return res;
}

const url = (path: string) => `${service.url}${path}`;
const jsonPost = (body: unknown, headers: Record<string, string> = {}): RequestInit => ({
  method: 'POST',
  headers: { 'content-type': 'application/json', ...headers },
  body: typeof body === 'string' ? body : JSON.stringify(body),
});

/** A paid POST, paid by `account` with the official client (the wallet named, so its network is offered). */
async function paid(account: PrivateKeyAccount, path: string, body: unknown, template = path): Promise<any> {
  const res = await check(template, 'post', await payingFetch(account)(url(path), jsonPost(body, { 'x-wallet-address': account.address })));
  expect(res.status, `${path}: ${await res.clone().text()}`).toBeLessThan(300);
  return (await json(res)).data;
}

async function signed(account: PrivateKeyAccount, typedData: any): Promise<string> {
  return account.signTypedData({
    domain: typedData.domain,
    types: typedData.types,
    primaryType: typedData.primaryType,
    message: { ...typedData.message, value: BigInt(typedData.message.value), validAfter: BigInt(typedData.message.validAfter), validBefore: BigInt(typedData.message.validBefore) },
  });
}

/** A Sign-In-With-X proof of `account` for `target`, made by the official client function. */
async function siwx(account: PrivateKeyAccount, target: string): Promise<string> {
  const origin = new URL(service.url);
  const now = Date.now(); // the proof's times are checked against real time
  const info = { domain: origin.host, uri: origin.origin, version: '1', nonce: `n${now}${Math.random().toString(36).slice(2, 10)}`, issuedAt: new Date(now).toISOString(), expirationTime: new Date(now + 120_000).toISOString(), chainId: TESTNET, type: 'eip191' as const };
  return encodeSIWxHeader(await createSIWxPayload(info, account, target));
}

/** The world the requests name: tokens (one on the curve, one raising), a payment, delivery, payout, order, pledge and comment. */
const world = {} as {
  tokenId: string;
  fairId: string;
  paymentId: string;
  deliveryId: string;
  payoutId: string;
  orderId: string;
  pledgeId: string;
  commentId: string;
  image: string;
  channelId: string;
};

/** A payer's batch-settlement channel (docs/api.md "Pay once, call many"): the official client's, refunded at the end. */
const channel = new BatchSettlementEvmScheme(devAccount(9), { depositStrategy: (c) => BigInt(c.requestAmount) * 20n });

const inAnHour = () => new Date(clock.now().getTime() + 3_600_000).toISOString();
const get = async (path: string) => (await json(await fetch(url(path)))).data;

/** A token authorization for a sell of `tokens` by `account`, as the service prepares it, signed. */
async function sellAuthorization(account: PrivateKeyAccount, tokens: string) {
  const served = await get(`/api/tokens/${world.tokenId}/sell-authorization?wallet=${account.address}&tokens=${tokens}`);
  return { ...served.tokenAuthorization, signature: await signed(account, served.typedData) };
}

async function orderBody(account: PrivateKeyAccount) {
  const expiresAt = inAnHour();
  const served = await get(`/api/orders/authorization?wallet=${account.address}&tokenId=${world.tokenId}&kind=limit_buy&usdAmount=1&expiresAt=${expiresAt}`);
  const authorization = { ...served.authorization, signature: await signed(account, served.typedData) };
  return { tokenId: world.tokenId, kind: 'limit_buy', triggerPriceUsd: '0.000001', usdAmount: '1', expiresAt, authorization };
}

async function pledgeBody(account: PrivateKeyAccount, usd = '2') {
  const served = await get(`/api/tokens/${world.fairId}/pledge-authorization?wallet=${account.address}&usdAmount=${usd}`);
  return { tokenId: world.fairId, usdAmount: usd, authorization: { ...served.authorization, signature: await signed(account, served.typedData) } };
}

let bought = 0;

/**
 * A body each paid operation succeeds with, paid by the wallet named (a new operation needs a line
 * here: the test fails until it has one).
 */
const SUCCEEDS: Record<string, () => Promise<[PrivateKeyAccount, unknown]>> = {
  token_create: async () => [creator, { name: 'Contract Two', symbol: 'CTWO' }],
  token_buy_usd: async () => [buyer, { tokenId: world.tokenId, usdAmount: '1' }],
  // Another amount each time: the same request's price is held for a minute (a buy at it would slip).
  token_buy_tokens: async () => [buyer, { tokenId: world.tokenId, tokens: String(100_000 + ++bought) }],
  token_buy_quote: async () => [buyer, { quoteId: (await get(`/api/quote?tokenId=${world.tokenId}&side=buy&usdAmount=1`)).quoteId }],
  token_sell: async () => [buyer, { tokenId: world.tokenId, tokens: '10000', tokenAuthorization: await sellAuthorization(buyer, '10000') }],
  token_info: async () => [stranger, { tokenId: world.tokenId }],
  token_pledge: async () => [stranger, await pledgeBody(stranger, '1')],
  order_place: async () => [stranger, await orderBody(stranger)],
  token_comment: async () => [stranger, { tokenId: world.tokenId, text: 'contract' }],
  token_image: async () => [creator, { tokenId: world.tokenId, image: IMAGE }],
};

/** What a read needs beyond its required fields: one of two it names (a quote of a USD amount or of tokens). */
const ALSO: Record<string, Record<string, string>> = { quote: { usdAmount: '1' }, order_authorization: { usdAmount: '1' } };

/** A read's input field, from the world (a new field a read requires needs a line here). */
function valueOf(op: AnyRead, field: string): string {
  const raising = /raise|pledge/.test(op.http.path);
  const values: Record<string, string> = {
    tokenId: raising ? world.fairId : world.tokenId,
    wallet: buyer.address,
    address: creator.address,
    paymentId: world.paymentId,
    deliveryId: world.deliveryId,
    payoutId: world.payoutId,
    orderId: world.orderId,
    pledgeId: world.pledgeId,
    commentId: world.commentId,
    channelId: world.channelId,
    side: 'buy',
    usdAmount: '1',
    tokens: '10',
    kind: 'limit_buy',
    expiresAt: inAnHour(),
  };
  const value = values[field];
  if (value === undefined) throw new Error(`${op.operation}: no value for its field ${field} (add one to valueOf)`);
  return value;
}

/** A read's path with its parameters filled (`ids` over the world's), and its required query. */
function readRequest(op: AnyRead, ids: Record<string, string> = {}): string {
  let path = op.http.path;
  for (const [name, field] of pathParams(op.http)) path = path.replace(`:${name}`, encodeURIComponent(ids[field] ?? valueOf(op, field)));
  const query = queryOf(op);
  if (!query || op.http.method === 'post') return path;
  const shape = query.shape as Record<string, { safeParse(v: unknown): { success: boolean } }>;
  const required = Object.keys(shape).filter((k) => !shape[k]!.safeParse(undefined).success && !(op.http.walletProof === k));
  const search = new URLSearchParams({ ...Object.fromEntries(required.map((k) => [k, valueOf(op, k)])), ...ALSO[op.operation] });
  if (op.http.walletProof && !required.includes(op.http.walletProof)) search.set(op.http.walletProof, valueOf(op, op.http.walletProof));
  return search.size > 0 ? `${path}?${search}` : path;
}

const template = (path: string) => path.replace(/:(\w+)/g, '{$1}');

beforeAll(async () => {
  const tokenIssuer = new FakeTokenIssuer({ clock });
  tokenIssuer.addStablecoin(TESTNET, USDC.address, USDC.name, USDC.version);
  for (const w of [creator, buyer, stranger]) tokenIssuer.mint(TESTNET, USDC.address, w.address, parseUsd('1000'));
  service = await startTestService({ ports: { clock, tokenIssuer, facilitator: new FakeFacilitator({ clock, defaultBalance: 10_000_000_000n }) } });
  doc = (await json(await fetch(url('/api/openapi.json')))) as Doc;

  const created = await paid(creator, '/tokens', { name: 'Contract', symbol: 'CONT', initialBuyUsd: '1' });
  world.tokenId = created.tokenId;
  world.fairId = (await paid(creator, '/tokens', { name: 'Contract Fair', symbol: 'CFAIR', launch: { mode: 'fair', goalUsd: '50', durationSeconds: 3600 } })).tokenId;
  const bought = await paid(buyer, '/entrypoints/token_buy_usd', { tokenId: world.tokenId, usdAmount: '2' });
  world.paymentId = bought.trade.paymentId;
  world.deliveryId = bought.delivery.deliveryId;
  await settle(service); // deployed, delivered
  const sold = await paid(buyer, '/entrypoints/token_sell', { tokenId: world.tokenId, tokens: '100', tokenAuthorization: await sellAuthorization(buyer, '100') });
  world.payoutId = sold.payout.payoutId;
  world.orderId = (await paid(buyer, '/entrypoints/order_place', await orderBody(buyer))).orderId;
  world.pledgeId = (await paid(buyer, '/entrypoints/token_pledge', await pledgeBody(buyer))).pledge.pledgeId;
  world.commentId = (await paid(buyer, '/entrypoints/token_comment', { tokenId: world.tokenId, text: 'first' })).commentId;
  world.image = new URL((await paid(creator, '/entrypoints/token_image', { tokenId: world.tokenId, image: IMAGE })).imageUrl).pathname;
  const byVoucher = wrapFetchWithPaymentFromConfig(fetch, { schemes: [{ network: 'eip155:*', client: channel }], spendControls: false });
  const info = await check('/entrypoints/token_info', 'post', await byVoucher(url('/entrypoints/token_info'), jsonPost({ tokenId: world.tokenId }, { 'x-wallet-address': devAccount(9).address })));
  expect(info.status, await info.clone().text()).toBe(200);
  world.channelId = (decodeBase64Json<any>(info.headers.get('payment-response')).extra.channelState.channelId as string).toLowerCase();
}, 60_000);

afterAll(async () => {
  await service?.stop();
});

describe('the free reads of the catalogue, against the document', () => {
  it('each answers its success, a bad input, an unknown id and a refusal as the document says', async () => {
    for (const op of service.application.reads) {
      if (op.http.method === 'post') continue; // below, with the proofs they take
      const path = template(op.http.path);
      const ok = await check(path, 'get', await fetch(url(readRequest(op))));
      expect(ok.status, `${op.operation}: ${await ok.clone().text()}`).toBe(200);
      // A query parameter the read does not take, or a path parameter of the wrong shape: 400.
      if (queryOf(op)) await check(path, 'get', await fetch(url(`${readRequest(op)}${readRequest(op).includes('?') ? '&' : '?'}bogus=1`)));
      const params = pathParams(op.http);
      if (params.length > 0) {
        await check(path, 'get', await fetch(url(readRequest(op, Object.fromEntries(params.map(([, f]) => [f, 'no_such_id'])))))); // 400 (or 404 when looked up)
        const unknown = Object.fromEntries(
          params.map(([, f]) => [f, f === 'tokenId' ? UNKNOWN_TOKEN : f === 'address' ? stranger.address : f === 'channelId' ? `0x${'00'.repeat(32)}` : `${valueOf(op, f).slice(0, 4)}01M0000000000000000000000Z`]),
        );
        await check(path, 'get', await fetch(url(readRequest(op, unknown))));
      }
    }
    // Inputs naming what does not exist, or cannot be done now.
    await check('/api/quote', 'get', await fetch(url(`/api/quote?tokenId=${UNKNOWN_TOKEN}&side=buy&usdAmount=1`)));
    await check('/api/quote', 'get', await fetch(url(`/api/quote?tokenId=${world.fairId}&side=buy&usdAmount=1`)));
    await check('/api/orders/authorization', 'get', await fetch(url(`/api/orders/authorization?wallet=${buyer.address}&tokenId=${UNKNOWN_TOKEN}&kind=limit_buy&usdAmount=1&expiresAt=${inAnHour()}`)));
    await check('/api/orders/authorization', 'get', await fetch(url(`/api/orders/authorization?wallet=${buyer.address}&tokenId=${world.fairId}&kind=limit_buy&usdAmount=1&expiresAt=${inAnHour()}`)));
    await check('/api/tokens/{id}/sell-authorization', 'get', await fetch(url(`/api/tokens/${world.fairId}/sell-authorization?wallet=${buyer.address}&tokens=1`)));
    await check('/api/tokens/{id}/pledge-authorization', 'get', await fetch(url(`/api/tokens/${world.tokenId}/pledge-authorization?wallet=${buyer.address}&usdAmount=1`)));
    await check('/positions', 'get', await fetch(url('/positions')));
    await check('/api/wallets/{address}/earnings', 'get', await fetch(url('/api/wallets/0x12/earnings')));
  });

  it('the free POSTs: success with their proof, another wallet, an unknown id, twice, and bodies too large or not JSON', async () => {
    const cancelOrder = '/api/orders/{orderId}/cancel';
    const orderUrl = (id: string) => url(`/api/orders/${id}/cancel`);
    await check(cancelOrder, 'post', await fetch(orderUrl(world.orderId), jsonPost({ signature: await stranger.signMessage({ message: cancelMessage(world.orderId) }) })));
    await check(cancelOrder, 'post', await fetch(orderUrl(world.orderId), jsonPost({ signature: 5 })));
    await check(cancelOrder, 'post', await fetch(orderUrl(world.orderId), { method: 'POST', headers: { 'content-type': 'text/plain' }, body: 'cancel' }));
    await check(cancelOrder, 'post', await fetch(orderUrl(world.orderId), jsonPost(JSON.stringify({ signature: 'x'.repeat(70_000) }))));
    await check(cancelOrder, 'post', await fetch(orderUrl('ord_01M0000000000000000000000Z'), jsonPost({ signature: await buyer.signMessage({ message: cancelMessage('ord_01M0000000000000000000000Z') }) })));
    const mine = { signature: await buyer.signMessage({ message: cancelMessage(world.orderId) }) };
    expect((await check(cancelOrder, 'post', await fetch(orderUrl(world.orderId), jsonPost(mine)))).status).toBe(200);
    await check(cancelOrder, 'post', await fetch(orderUrl(world.orderId), jsonPost(mine))); // 409: not open

    const cancelPledge = '/api/pledges/{pledgeId}/cancel';
    const pledgeUrl = (id: string) => url(`/api/pledges/${id}/cancel`);
    await check(cancelPledge, 'post', await fetch(pledgeUrl(world.pledgeId), jsonPost({ signature: await stranger.signMessage({ message: cancelPledgeMessage(world.pledgeId) }) })));
    await check(cancelPledge, 'post', await fetch(pledgeUrl(world.pledgeId), jsonPost({ signature: 5 })));
    await check(cancelPledge, 'post', await fetch(pledgeUrl(world.pledgeId), { method: 'POST', headers: { 'content-type': 'text/plain' }, body: 'cancel' }));
    await check(cancelPledge, 'post', await fetch(pledgeUrl(world.pledgeId), jsonPost(JSON.stringify({ signature: 'x'.repeat(70_000) }))));
    await check(cancelPledge, 'post', await fetch(pledgeUrl('pld_01M0000000000000000000000Z'), jsonPost({ signature: await buyer.signMessage({ message: cancelPledgeMessage('pld_01M0000000000000000000000Z') }) })));
    const pledger = { signature: await buyer.signMessage({ message: cancelPledgeMessage(world.pledgeId) }) };
    expect((await check(cancelPledge, 'post', await fetch(pledgeUrl(world.pledgeId), jsonPost(pledger)))).status).toBe(200);
    await check(cancelPledge, 'post', await fetch(pledgeUrl(world.pledgeId), jsonPost(pledger))); // 409: not pledged

    const hide = '/tokens/{id}/comments/{commentId}/hide';
    const hidePath = `/tokens/${world.tokenId}/comments/${world.commentId}/hide`;
    await check(hide, 'post', await fetch(url(hidePath), { method: 'POST' })); // no proof: 400
    await check(hide, 'post', await fetch(url(hidePath), { method: 'POST', headers: { 'sign-in-with-x': await siwx(stranger, url(hidePath)) } }));
    await check(hide, 'post', await fetch(url(hidePath), { method: 'POST', headers: { 'content-type': 'text/plain' }, body: 'hide' }));
    await check(hide, 'post', await fetch(url(`/tokens/${world.tokenId}/comments/cmt_01M0000000000000000000000Z/hide`), { method: 'POST', headers: { 'sign-in-with-x': await siwx(creator, url(hidePath)) } }));
    const hidden = await check(hide, 'post', await fetch(url(hidePath), { method: 'POST', headers: { 'sign-in-with-x': await siwx(creator, url(hidePath)) } }));
    expect(hidden.status, await hidden.clone().text()).toBe(200);

    const splits = '/tokens/{id}/splits';
    const splitsPath = `/tokens/${world.tokenId}/splits`;
    const body = { creatorSplits: [{ wallet: creator.address, bps: 6000 }, { wallet: buyer.address, bps: 4000 }] };
    await check(splits, 'post', await fetch(url(splitsPath), jsonPost(body))); // no proof: 400
    await check(splits, 'post', await fetch(url(splitsPath), jsonPost(body, { 'sign-in-with-x': await siwx(stranger, url(splitsPath)) }))); // another wallet: 403
    await check(splits, 'post', await fetch(url(splitsPath), jsonPost({ creatorSplits: [{ wallet: creator.address, bps: 1 }] }, { 'sign-in-with-x': await siwx(creator, url(splitsPath)) }))); // not 10000: 400
    const changed = await check(splits, 'post', await fetch(url(splitsPath), jsonPost(body, { 'sign-in-with-x': await siwx(creator, url(splitsPath)) })));
    expect(changed.status, await changed.clone().text()).toBe(200);
  });
});

describe('the paid operations of the catalogue, at each of their paths, against the document', () => {
  it('each answers its example with a 402, a bad body, a foreign origin, a body too large or not JSON, an unknown token, and its success', async () => {
    for (const e of service.application.entrypoints.values() as Iterable<AnyEntrypoint>) {
      for (const path of entrypointPaths(e)) {
        const example = e.example.input;
        const challenge = await check(path, 'post', await fetch(url(path), jsonPost(example)));
        expect(challenge.status, `${path}: ${await challenge.clone().text()}`).toBe(402);
        await check(path, 'post', await fetch(url(path), jsonPost({})));
        await check(path, 'post', await fetch(url(path), jsonPost('{"tokenId": ')));
        await check(path, 'post', await fetch(url(path), jsonPost(example, { origin: FOREIGN })));
        await check(path, 'post', await fetch(url(path), { method: 'POST', headers: { 'content-type': 'text/plain' }, body: JSON.stringify(example) }));
        await check(path, 'post', await fetch(url(path), jsonPost(JSON.stringify({ ...example, padding: 'x'.repeat((e.bodyLimit ?? 64 * 1024) + 1) }))));
        if ('tokenId' in example) await check(path, 'post', await fetch(url(path), jsonPost({ ...example, tokenId: UNKNOWN_TOKEN })));
      }
      const succeeds = SUCCEEDS[e.name];
      expect(succeeds, `${e.name}: add a body it succeeds with to SUCCEEDS`).toBeDefined();
      for (const path of entrypointPaths(e)) {
        const [account, body] = await succeeds!();
        await paid(account, path, body);
      }
    }
  });

  it('the refusals particular to some: a raising token, an expired quote, an image refused for its bytes', async () => {
    for (const name of ['token_buy_usd', 'token_buy_tokens']) {
      await check(`/entrypoints/${name}`, 'post', await fetch(url(`/entrypoints/${name}`), jsonPost({ tokenId: world.fairId, usdAmount: '1', tokens: name === 'token_buy_tokens' ? '1000' : undefined })));
    }
    await check('/entrypoints/token_buy_quote', 'post', await fetch(url('/entrypoints/token_buy_quote'), jsonPost({ quoteId: 'qte_01M0000000000000000000000Z' })));
    const quote = await get(`/api/quote?tokenId=${world.tokenId}&side=buy&usdAmount=1`);
    clock.offsetMs += 120_000;
    try {
      await check('/entrypoints/token_buy_quote', 'post', await fetch(url('/entrypoints/token_buy_quote'), jsonPost({ quoteId: quote.quoteId })));
    } finally {
      clock.offsetMs -= 120_000;
    }
    for (const [path, body] of [
      ['/tokens', (image: string) => ({ name: 'Pictured', symbol: 'PIC', image })],
      ['/entrypoints/token_image', (image: string) => ({ tokenId: world.tokenId, image })],
    ] as const) {
      for (const image of [dataUrl(SVG, 'image/svg+xml'), dataUrl(TEXT_AS_PNG), dataUrl(await bombPng()), dataUrl(scanBombJpeg(), 'image/jpeg')]) {
        await check(path, 'post', await fetch(url(path), jsonPost(body(image), { 'x-wallet-address': creator.address })));
      }
    }
    await check('/entrypoints/token_image', 'post', await fetch(url('/entrypoints/token_image'), jsonPost({ tokenId: world.tokenId, image: IMAGE }, { 'x-wallet-address': stranger.address })));
  });
});

describe('the routes that are no operation, against the document', () => {
  it('documents, probes, metadata, images, events and MCP', async () => {
    for (const path of ['/health', '/livez', '/readyz', '/metrics', '/entrypoints', '/api/openapi.json', '/llms.txt', '/api/version', '/.well-known/x402', '/.well-known/mcp/catalog.json', '/.well-known/mcp.json']) {
      expect((await check(path, 'get', await fetch(url(path)))).status, path).toBe(200);
    }
    await check('/openapi.json', 'get', await fetch(url('/openapi.json'), { redirect: 'manual' }));
    // A GET of a paid URL: the batch-settlement refund's offers, the refund itself, no such entrypoint.
    const refund = '/entrypoints/{name}';
    expect((await check(refund, 'get', await fetch(url('/entrypoints/token_info?network=eip155:84532&asset=USDC')))).status).toBe(402);
    await check(refund, 'get', await fetch(url('/entrypoints/token_teleport')));
    const refunding: typeof fetch = async (input, init) => check(refund, 'get', await fetch(input, init));
    expect((await channel.refund(url(`/entrypoints/token_info?network=${TESTNET}&asset=USDC`), { fetch: refunding })).success).toBe(true);
    // The server card in its own media type when asked for it, else JSON.
    for (const path of ['/mcp/server-card', '/.well-known/mcp/server-card.json']) {
      const card = await check(path, 'get', await fetch(url(path), { headers: { accept: 'application/mcp-server-card+json' } }));
      expect(card.headers.get('content-type')).toMatch(/^application\/mcp-server-card\+json/);
      await check(path, 'get', await fetch(url(path), { headers: { accept: 'application/json' } }));
    }
    const metadata = '/api/tokens/{id}/metadata.json';
    expect((await check(metadata, 'get', await fetch(url(`/api/tokens/${world.tokenId}/metadata.json`)))).status).toBe(200);
    await check(metadata, 'get', await fetch(url('/api/tokens/not-a-token/metadata.json')));
    await check(metadata, 'get', await fetch(url(`/api/tokens/${UNKNOWN_TOKEN}/metadata.json`)));
    const image = await check('/images/{file}', 'get', await fetch(url(world.image)));
    expect(image.status).toBe(200);
    await check('/images/{file}', 'get', await fetch(url(world.image), { headers: { 'if-none-match': image.headers.get('etag')! } }));
    await check('/images/{file}', 'get', await fetch(url(`/images/${'0'.repeat(64)}.webp`)));
    // The event stream: its answer's head, then the reader goes.
    const stop = new AbortController();
    const stream = await fetch(url('/api/events'), { headers: { accept: 'text/event-stream' }, signal: stop.signal });
    answered.set('GET /api/events', new Set([stream.status]));
    if (!documented(doc, '/api/events', 'get', stream.status)?.content?.[(stream.headers.get('content-type') ?? '').split(';')[0]!]) violations.push(`GET /api/events → ${stream.status} ${stream.headers.get('content-type')}: not documented`);
    stop.abort();
    await check('/api/events', 'get', await fetch(url('/api/events?bogus=1')));

    const mcp = (body: unknown, headers: Record<string, string> = {}) =>
      fetch(url('/mcp'), jsonPost(body, { accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25', ...headers }));
    const initialize = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'contract', version: '1' } } };
    expect((await check('/mcp', 'post', await mcp(initialize))).status).toBe(200);
    await check('/mcp', 'post', await mcp({ jsonrpc: '2.0', method: 'notifications/initialized' }));
    await check('/mcp', 'post', await mcp({ hello: 'world' }));
    await check('/mcp', 'post', await mcp(initialize, { accept: 'application/json' }));
    await check('/mcp', 'post', await mcp(initialize, { origin: FOREIGN }));
    await check('/mcp', 'post', await fetch(url('/mcp'), { method: 'POST', headers: { 'content-type': 'text/plain', accept: 'application/json, text/event-stream' }, body: 'hello' }));
  });
});

describe('the free budget, against the document', () => {
  it('every route it counts answers 429 as documented once the budget is spent; the probes never', async () => {
    // A budget spent for good: whatever the time a request takes, it is refused (a window never turns over here).
    const spent: RateLimiter = {
      consume: async () => ({ allowed: false, limit: 1, remaining: 0, resetSeconds: 60 }),
      health: async () => 'ok',
      close: async () => {},
    };
    const limited = await startTestService({ ports: { rateLimiter: spent } }, { RATE_LIMIT_FREE_PER_MINUTE: '1' });
    try {
      for (const [path, methods] of Object.entries(doc.paths)) {
        for (const method of Object.keys(methods)) {
          const concrete = path.replace(/\{(\w+)\}/g, (_m, name: string) => (name === 'file' ? `${'0'.repeat(64)}.webp` : name === 'address' ? buyer.address : UNKNOWN_TOKEN));
          const init: RequestInit =
            method === 'post' ? jsonPost(path === '/mcp' ? { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'c', version: '1' } } } : {}, { accept: 'application/json, text/event-stream' }) : { redirect: 'manual' };
          const res = await fetch(`${limited.url}${concrete}`, init);
          await check(path, method, res);
          // Every route but the probes (an image that is there is served before the budget; this one is not).
          const counted = !['/livez', '/readyz', '/metrics'].includes(path);
          expect(res.status === 429, `${method.toUpperCase()} ${path}: ${res.status}`).toBe(counted);
        }
      }
    } finally {
      await limited.stop();
    }
  });
});

describe('the document, over what was asked', () => {
  it('no answer it does not describe', () => {
    expect(violations).toEqual([]);
  });

  it('every route of the document was asked, each to its success', () => {
    const unasked: string[] = [];
    for (const [path, methods] of Object.entries(doc.paths)) {
      for (const method of Object.keys(methods)) {
        const statuses = answered.get(`${method.toUpperCase()} ${path}`);
        if (!statuses || ![...statuses].some((s) => s < 400)) unasked.push(`${method.toUpperCase()} ${path} (${[...(statuses ?? [])].join(', ') || 'never asked'})`);
      }
    }
    expect(unasked).toEqual([]);
  });
});
