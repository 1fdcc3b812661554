/**
 * HttpFacilitator against a remote facilitator simulated with nock: every answer it can get,
 * and what each means for the money (FacilitatorError = nothing charged; SettlementIndeterminate
 * = maybe charged, the reconciler decides).
 */
import { createServer } from 'node:net';
import nock from 'nock';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { HttpFacilitator } from '../../../src/adapters/facilitator/http/http-facilitator.js';
import { requirementsFor } from '../../../src/app/payments/requirements.js';
import { FacilitatorError } from '../../../src/domain/errors.js';
import { TESTNET } from '../../../src/domain/network.js';
import { SettlementIndeterminate, type PaymentPayload } from '../../../src/ports/facilitator.js';

/** A reply that never comes: nock 15's .delay() answers after the caller aborted, which undici asserts against in a later tick. */
const neverAnswers = () => new Promise<never>(() => undefined);

const URL = 'http://facilitator.test';
const requirements = requirementsFor(TESTNET, 10_000n, '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266');
const payload: PaymentPayload = {
  x402Version: 2,
  accepted: requirements,
  payload: { signature: '0x01', authorization: { from: '0x9965507D1a55bcC2695C58ba16FB37d819B0A4dc' } },
};
const facilitator = (over: Partial<ConstructorParameters<typeof HttpFacilitator>[0]> = {}) =>
  new HttpFacilitator({ url: `${URL}/`, verifyTimeoutMs: 300, settleTimeoutMs: 300, ...over });

beforeAll(() => nock.disableNetConnect());
afterEach(() => nock.cleanAll());
afterAll(() => nock.enableNetConnect());

describe('verify', () => {
  it('posts the x402 v2 body with auth headers and returns the verdict', async () => {
    const scope = nock(URL, { reqheaders: { authorization: 'Bearer k' } })
      .post('/verify', { x402Version: 2, paymentPayload: payload as never, paymentRequirements: requirements as never })
      .reply(200, { isValid: true, payer: '0x9965507D1a55bcC2695C58ba16FB37d819B0A4dc' });
    expect(await facilitator({ headers: { authorization: 'Bearer k' } }).verify(payload, requirements)).toEqual({
      isValid: true,
      payer: '0x9965507D1a55bcC2695C58ba16FB37d819B0A4dc',
    });
    scope.done();
  });

  it('a 4xx with a well-formed refusal is a refusal, not an error', async () => {
    nock(URL).post('/verify').reply(400, { isValid: false, invalidReason: 'invalid_exact_evm_signature' });
    expect(await facilitator().verify(payload, requirements)).toEqual({ isValid: false, invalidReason: 'invalid_exact_evm_signature' });
  });

  it.each([
    ['a 5xx', () => nock(URL).post('/verify').reply(503, 'unavailable')],
    ['a garbage 200', () => nock(URL).post('/verify').reply(200, '<html>')],
    ['a wrong-shaped 200', () => nock(URL).post('/verify').reply(200, { valid: 'yes' })],
    ['a timeout', () => nock(URL).post('/verify').reply(neverAnswers)],
    ['a dropped connection', () => nock(URL).post('/verify').replyWithError(Object.assign(new Error('reset'), { code: 'ECONNRESET' }))],
  ])('%s is a FacilitatorError', async (_name, setup) => {
    setup();
    await expect(facilitator().verify(payload, requirements)).rejects.toBeInstanceOf(FacilitatorError);
  });
});

describe('an x402 v1 payment (decision 0046)', () => {
  const v1: PaymentPayload = { ...payload, x402Version: 1, resource: { url: 'http://service.test/tokens' } };

  it("goes to the facilitator's v1 path in v1 shapes; its settlement's network comes back as CAIP-2", async () => {
    const body = {
      x402Version: 1,
      paymentPayload: { x402Version: 1, scheme: 'exact', network: 'base-sepolia', payload: payload.payload },
      paymentRequirements: {
        scheme: 'exact',
        network: 'base-sepolia',
        maxAmountRequired: '10000',
        resource: 'http://service.test/tokens',
        description: '',
        mimeType: 'application/json',
        payTo: requirements.payTo,
        maxTimeoutSeconds: 60,
        asset: requirements.asset,
        extra: { name: 'USDC', version: '2' },
      },
    };
    const scope = nock(URL)
      .post('/verify', body as never)
      .reply(200, { isValid: true, payer: '0x9965507D1a55bcC2695C58ba16FB37d819B0A4dc' })
      .post('/settle', body as never)
      .reply(200, { success: true, transaction: `0x${'b'.repeat(64)}`, network: 'base-sepolia', payer: '0x9965507D1a55bcC2695C58ba16FB37d819B0A4dc' });
    expect((await facilitator().verify(v1, requirements)).isValid).toBe(true);
    expect(await facilitator().settle(v1, requirements)).toMatchObject({ success: true, network: TESTNET });
    scope.done();
  });
});

describe('settle', () => {
  it('returns the settlement', async () => {
    nock(URL).post('/settle').reply(200, { success: true, transaction: `0x${'a'.repeat(64)}`, network: TESTNET, payer: '0x1' });
    expect(await facilitator().settle(payload, requirements)).toEqual({
      success: true,
      transaction: `0x${'a'.repeat(64)}`,
      network: TESTNET,
      payer: '0x1',
    });
  });

  it('a failed settlement with a readable body is a failure (nothing charged)', async () => {
    nock(URL).post('/settle').reply(400, { success: false, errorReason: 'invalid_exact_evm_insufficient_balance', transaction: '', network: TESTNET });
    expect(await facilitator().settle(payload, requirements)).toMatchObject({ success: false, errorReason: 'invalid_exact_evm_insufficient_balance' });
  });

  it.each([
    ['a timeout', () => nock(URL).post('/settle').reply(neverAnswers)],
    ['a 5xx without a settlement', () => nock(URL).post('/settle').reply(502, 'bad gateway')],
    ['a garbage 200', () => nock(URL).post('/settle').reply(200, 'ok!')],
    ['a connection dropped after sending', () => nock(URL).post('/settle').replyWithError(Object.assign(new Error('reset'), { code: 'ECONNRESET' }))],
  ])('%s is indeterminate: the money may have moved', async (_name, setup) => {
    setup();
    await expect(facilitator().settle(payload, requirements)).rejects.toBeInstanceOf(SettlementIndeterminate);
  });

  it('a refused connection is a FacilitatorError: nothing can have been settled', async () => {
    const server = createServer();
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as { port: number }).port;
    await new Promise((r) => server.close(r)); // now nothing listens there
    nock.enableNetConnect(`127.0.0.1:${port}`);
    await expect(new HttpFacilitator({ url: `http://127.0.0.1:${port}` }).settle(payload, requirements)).rejects.toBeInstanceOf(FacilitatorError);
  });
});

describe('supported', () => {
  it('lists the kinds, and a bad answer is a FacilitatorError', async () => {
    nock(URL).get('/supported').reply(200, { kinds: [{ x402Version: 2, scheme: 'exact', network: TESTNET }], extensions: [], signers: {} });
    expect(await facilitator().supported()).toEqual([{ x402Version: 2, scheme: 'exact', network: TESTNET }]);
    nock(URL).get('/supported').reply(500);
    await expect(facilitator().supported()).rejects.toBeInstanceOf(FacilitatorError);
  });
});
