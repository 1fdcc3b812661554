/**
 * The payment-identifier extension: the id read with the official packages from the payload the
 * official client builds, and the idempotency rules over the stores (memory, SQLite, PostgreSQL).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { x402Client } from '@x402/core/client';
import { ExactEvmScheme } from '@x402/evm';
import { appendPaymentIdentifierToExtensions, generatePaymentId, validatePaymentIdentifier } from '@x402/extensions/payment-identifier';
import { describe, expect, it } from 'vitest';
import { paymentIdentifierDeclaration, readPaymentIdentifier } from '../../src/adapters/kit/x402/x402-extensions.js';
import { MemoryUnitOfWork } from '../../src/adapters/persistence/memory/memory-unit-of-work.js';
import { MikroOrmUnitOfWork } from '../../src/adapters/persistence/mikro-orm/mikro-orm-unit-of-work.js';
import { claimPayment, matchPaymentIdentifier } from '../../src/app/payments/extensions/payment-identifier.js';
import { TESTNET } from '../../src/domain/network.js';
import type { PaymentPayload } from '../../src/ports/facilitator.js';
import { withUow, type UowFactory } from '../contract/uow-factory.js';
import { OTHER, payment, WALLET } from '../support/fixtures.js';
import { dropSchema, POSTGRES_URL } from '../support/postgres.js';
import { withoutServices } from '../support/services.js';
import { devAccount, usdcPaymentRequired } from '../support/x402-client.js';

describe('reading the id (official client → our reader)', () => {
  const client = x402Client.fromConfig({ schemes: [{ network: 'eip155:*', client: new ExactEvmScheme(devAccount(5)) }], spendControls: false });
  const required = () => ({
    ...usdcPaymentRequired({ url: 'http://127.0.0.1:3000/entrypoints/token_info' }, [TESTNET], 1_000n),
    extensions: paymentIdentifierDeclaration(),
  });

  it('our 402 declaration is the extension’s own, and valid', () => {
    const declared = paymentIdentifierDeclaration()['payment-identifier'];
    expect(validatePaymentIdentifier(declared)).toEqual({ valid: true });
    expect(declared).toMatchObject({ info: { required: false } });
  });

  it('the id a client appends reaches us; a payment without one has none', async () => {
    const id = generatePaymentId();
    const withId = required();
    appendPaymentIdentifierToExtensions(withId.extensions, id);
    expect(readPaymentIdentifier((await client.createPaymentPayload(withId as never)) as PaymentPayload)).toEqual({ id });
    expect(readPaymentIdentifier((await client.createPaymentPayload(required() as never)) as PaymentPayload)).toEqual({ id: null });
    const plain = { ...required(), extensions: undefined };
    expect(readPaymentIdentifier((await client.createPaymentPayload(plain as never)) as PaymentPayload)).toEqual({ id: null });
  });

  it('a malformed extension is reported, never thrown', () => {
    const base = { x402Version: 2, accepted: {} as never, payload: {} };
    const cases: unknown[] = [
      { info: { required: false, id: 'short' } },
      { info: { required: false, id: 'has spaces in it, sixteen+' } },
      { info: { required: false, id: 42 } },
      { info: { id: 'pay_0123456789abcdef' } },
      { info: null },
      'a string',
    ];
    for (const ext of cases) {
      const reading = readPaymentIdentifier({ ...base, extensions: { 'payment-identifier': ext } } as PaymentPayload);
      expect(reading, JSON.stringify(ext)).toMatchObject({ id: null, invalid: expect.any(Array) });
    }
    expect(readPaymentIdentifier({ ...base, extensions: { 'payment-identifier': null } } as never)).toEqual({ id: null });
  });

  it('with our declared schema echoed back, the same ids pass and fail as with the schema checked; a foreign schema is still checked', () => {
    const base = { x402Version: 2, accepted: {} as never, payload: {} };
    const { schema } = paymentIdentifierDeclaration()['payment-identifier'] as { schema: Record<string, unknown> };
    const read = (info: unknown, s: unknown = schema) => readPaymentIdentifier({ ...base, extensions: { 'payment-identifier': { info, schema: s } } } as PaymentPayload);
    expect(read({ required: false, id: 'pay_0123456789abcdef' })).toEqual({ id: 'pay_0123456789abcdef' });
    expect(read({ required: true })).toEqual({ id: null });
    for (const info of [{ required: false, id: 'short' }, { required: false, id: 'x'.repeat(129) }, { required: false, id: 'has spaces in it, sixteen+' }, { required: 'no', id: 'pay_0123456789abcdef' }, { id: 'pay_0123456789abcdef' }]) {
      expect(read(info), JSON.stringify(info)).toMatchObject({ id: null, invalid: expect.any(Array) });
    }
    const foreign = { ...schema, properties: { ...(schema.properties as object), id: { type: 'string', maxLength: 20 } } };
    expect(read({ required: false, id: 'pay_0123456789abcdef_long' }, foreign)).toMatchObject({ id: null, invalid: expect.any(Array) });
  });
});

const factories: [string, UowFactory][] = [
  ['memory', async () => ({ uow: new MemoryUnitOfWork() })],
  [
    'SQLite',
    async () => {
      const dir = mkdtempSync(join(tmpdir(), 'launchpad-payid-'));
      const uow = await MikroOrmUnitOfWork.open({ url: `sqlite:${join(dir, 'test.db')}` });
      return { uow, cleanup: async () => rmSync(dir, { recursive: true, force: true }) };
    },
  ],
  [
    'PostgreSQL',
    async () => {
      const schema = `t_${randomBytes(6).toString('hex')}`;
      const uow = await MikroOrmUnitOfWork.open({ url: `${POSTGRES_URL}?schema=${schema}` });
      return { uow, cleanup: () => dropSchema(schema) };
    },
  ],
];

describe.each(withoutServices(factories))('idempotency by payment identifier (%s)', (_name, make) => {
  const ID = 'pay_7d5d747be160e280504c099d984bcfe0';

  it('new → claimed with its payment → the same request replays its stored answer; another request or payer conflicts', () =>
    withUow(make, async (uow) => {
      const first = payment({ requestHash: 'r1' });
      expect(await matchPaymentIdentifier(uow, { id: ID, payer: WALLET, requestHash: 'r1' })).toEqual({ kind: 'new' });
      expect(await claimPayment(uow, first, ID)).toEqual({ claimed: true, payment: first });
      // in flight: no answer yet
      expect(await matchPaymentIdentifier(uow, { id: ID, payer: WALLET.toLowerCase(), requestHash: 'r1' })).toEqual({
        kind: 'replay',
        paymentId: first.paymentId,
        response: null,
      });
      const response = { status: 200, body: { success: true, operation: 'token_info', data: {} }, headers: {} };
      await uow.run((s) => s.payments.saveResponse(first.paymentId, response));
      expect(await matchPaymentIdentifier(uow, { id: ID, payer: WALLET, requestHash: 'r1' })).toEqual({ kind: 'replay', paymentId: first.paymentId, response });
      expect(await matchPaymentIdentifier(uow, { id: ID, payer: WALLET, requestHash: 'r2' })).toEqual({ kind: 'conflict', paymentId: first.paymentId });
      expect(await matchPaymentIdentifier(uow, { id: ID, payer: OTHER, requestHash: 'r1' })).toEqual({ kind: 'conflict', paymentId: first.paymentId });
    }));

  it('a retry with a fresh authorization and the same id stores nothing and gets the first payment', () =>
    withUow(make, async (uow) => {
      const first = payment({ requestHash: 'r1' });
      await claimPayment(uow, first, ID);
      const retry = payment({ requestHash: 'r1' }); // another nonce
      expect(await claimPayment(uow, retry, ID)).toEqual({ claimed: false, identifier: { kind: 'replay', paymentId: first.paymentId, response: null } });
      expect(await uow.run((s) => s.payments.get(retry.paymentId))).toBeNull();
      const elsewhere = payment({ requestHash: 'r2' });
      expect(await claimPayment(uow, elsewhere, ID)).toEqual({ claimed: false, identifier: { kind: 'conflict', paymentId: first.paymentId } });
      // the nonce rule still speaks first for the same authorization, id or not
      expect(await claimPayment(uow, { ...first, paymentId: 'pay_other' }, ID)).toEqual({ claimed: false, existing: first });
      expect(await claimPayment(uow, { ...first, paymentId: 'pay_other' }, null)).toEqual({ claimed: false, existing: first });
    }));

  it('of concurrent requests with one id and different authorizations, exactly one payment is stored', () =>
    withUow(make, async (uow) => {
      const payments = Array.from({ length: 8 }, () => payment({ requestHash: 'r1' }));
      const claims = await Promise.all(payments.map((p) => claimPayment(uow, p, ID)));
      const won = claims.filter((c) => c.claimed);
      expect(won).toHaveLength(1);
      const winner = (won[0] as { payment: { paymentId: string } }).payment.paymentId;
      for (const c of claims.filter((x) => !x.claimed)) expect(c).toEqual({ claimed: false, identifier: { kind: 'replay', paymentId: winner, response: null } });
      const stored = await Promise.all(payments.map((p) => uow.run((s) => s.payments.get(p.paymentId))));
      expect(stored.filter(Boolean)).toHaveLength(1);
    }));
});
