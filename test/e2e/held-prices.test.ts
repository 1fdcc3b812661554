/**
 * token_buy_tokens in a token's launch window, through the payment flow (issue #34, item 3;
 * decision 0040): the price a 402 holds is the asking wallet's — another wallet's 402 is the live
 * cost, lower as the launch fee decays — and the wallet that was asked still pays the price it
 * signed; a client that names no wallet pays too.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeFacilitator } from '../../src/adapters/facilitator/fake/fake-facilitator.js';
import type { RunningService } from '../../src/bootstrap/compose.js';
import { formatUsd } from '../../src/domain/money.js';
import { json, ShiftableClock, startTestService } from '../support/service.js';
import { decodeBase64Json, devAccount, payingFetch, signPayment } from '../support/x402-client.js';

const [creator, first, second, unnamed] = [devAccount(10), devAccount(11), devAccount(12), devAccount(13)];
const clock = new ShiftableClock();
const facilitator = new FakeFacilitator({ clock, defaultBalance: 10_000_000_000n });
let service: RunningService;
let tokenId: string;

const buyTokens = (headers: Record<string, string> = {}, f: typeof fetch = fetch) =>
  f(`${service.url}/entrypoints/token_buy_tokens`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ tokenId, tokens: '100000' }),
  });
const priceOf = (res: Response) => BigInt(decodeBase64Json<{ accepts: { amount: string }[] }>(res.headers.get('payment-required')).accepts[0]!.amount);

beforeAll(async () => {
  service = await startTestService({ ports: { clock, facilitator } }, { LAUNCH_FEE_DECAY_SECONDS: '20' });
  const created = await payingFetch(creator)(`${service.url}/tokens`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-wallet-address': creator.address }, body: JSON.stringify({ name: 'Launch', symbol: 'LNCH' }) });
  const body = await json(created);
  if (!body.data) throw new Error(JSON.stringify(body));
  tokenId = body.data.tokenId;
});
afterAll(async () => {
  await service?.stop();
});

describe('token_buy_tokens while the launch fee decays', () => {
  it('another wallet is asked the live cost, not a price held for someone else; the wallet asked pays its own', async () => {
    const asked = await buyTokens({ 'x-wallet-address': first.address });
    expect(asked.status).toBe(402);
    clock.offsetMs += 10_000;
    const other = await buyTokens({ 'x-wallet-address': second.address });
    expect(priceOf(other)).toBeLessThan(priceOf(asked));
    // The first wallet's payment for the price it was offered goes through.
    const paid = await buyTokens({ 'payment-signature': await signPayment(first, decodeBase64Json(asked.headers.get('payment-required'))) });
    expect(paid.status).toBe(200);
    expect((await json(paid)).data.usdSpent).toBe(formatUsd(priceOf(asked)));
    // The other wallet pays the live cost it was offered.
    const cheaper = await buyTokens({ 'payment-signature': await signPayment(second, decodeBase64Json(other.headers.get('payment-required'))) });
    expect(cheaper.status).toBe(200);
  });

  it('a client that names no wallet is asked the live cost and pays it', async () => {
    const anonymous = await buyTokens();
    clock.offsetMs += 2_000;
    expect(priceOf(await buyTokens())).toBeLessThan(priceOf(anonymous));
    const res = await buyTokens({}, payingFetch(unnamed));
    expect(res.status).toBe(200);
  });
});
