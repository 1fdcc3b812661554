/**
 * A payment whose fields are anything at all (issue #34, item 1): every leaf of a signed x402
 * payload — `x402Version`, `accepted.*`, `payload.signature`, `payload.authorization.*`,
 * `resource.*` — replaced by an arbitrary string, sent in PAYMENT-SIGNATURE and in MCP's
 * `_meta["x402/payment"]`. Never a 5xx (nor MCP's INTERNAL_ERROR, nor an error logged), and a
 * refused payment leaves nothing behind: no payment row, nothing settled.
 */
import type { Client } from '@modelcontextprotocol/client';
import type { PaymentPayload, PaymentRequired } from '@x402/core/types';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeFacilitator } from '../../src/adapters/facilitator/fake/fake-facilitator.js';
import { PAYMENT_META, paymentRequiredOf } from '../../src/adapters/kit/mcp/x402-mcp.js';
import { MemoryLogger } from '../../src/adapters/logging/memory/memory-logger.js';
import { MemoryUnitOfWork } from '../../src/adapters/persistence/memory/memory-unit-of-work.js';
import type { RunningService } from '../../src/bootstrap/compose.js';
import { call, connectMcp, envelopeOf, payerFor } from '../support/mcp-client.js';
import { ShiftableClock, startTestService } from '../support/service.js';
import { decodeBase64Json, devAccount } from '../support/x402-client.js';

const wallet = devAccount(8);
const clock = new ShiftableClock();
const facilitator = new FakeFacilitator({ clock, defaultBalance: 10_000_000_000n });
const uow = new MemoryUnitOfWork();
const logger = new MemoryLogger('error');
const body = { name: 'Hostile', symbol: 'HOST' };
let service: RunningService;
let agent: Client;
let httpRequired: PaymentRequired;
let mcpRequired: PaymentRequired;

beforeAll(async () => {
  service = await startTestService({ ports: { clock, facilitator, uow, logger } });
  agent = await connectMcp(`${service.url}/mcp`);
  httpRequired = decodeBase64Json((await post()).headers.get('payment-required'));
  mcpRequired = paymentRequiredOf(await call(agent, 'create_token', body)) as PaymentRequired;
});
afterAll(async () => {
  await agent?.close();
  await service?.stop();
});

function post(headers: Record<string, string> = {}) {
  return fetch(`${service.url}/tokens`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
}

type Json = string | number | boolean | null | Json[] | { [k: string]: Json };

/** Every leaf's path in a payload (arrays and objects walked, extensions included). */
function leaves(value: Json, path: string[] = []): string[][] {
  if (value !== null && typeof value === 'object') return Object.entries(value).flatMap(([k, v]) => leaves(v, [...path, k]));
  return [path];
}

function withLeaf(value: Json, path: string[], leaf: string): Json {
  const copy = structuredClone(value) as Record<string, Json>;
  let at = copy;
  for (const key of path.slice(0, -1)) at = at[key] as Record<string, Json>;
  at[path.at(-1)!] = leaf;
  return copy;
}

/** What a client could put in a numeric field, and anything else. */
const hostile = fc.oneof(
  fc.constantFrom('1e6', 'abc', '1.5', '-1', '0x3e8', ' 1000', '', '1_000', 'Infinity', 'NaN', '１０００', '9'.repeat(79), `${2n ** 256n}`, '0', '{}'),
  fc.string(),
  fc.string({ unit: 'binary' }),
  fc.bigInt({ min: -(2n ** 300n), max: 2n ** 300n }).map(String),
);

/** Nothing new stored or settled by a refused payment. */
function stored() {
  return { payments: uow.db.payments.size, settled: facilitator.settled.length, errors: logger.lines.filter((l) => l.level === 'error').length };
}

async function sweep(required: () => PaymentRequired, send: (payload: Json) => Promise<{ status: number; ok: boolean }>) {
  // Each run signs a fresh authorization: a mutation the service does not bind cannot replay another's.
  const sample = (await payerFor(wallet)(required())) as unknown as Json;
  const paths = leaves(sample);
  expect(paths.map((p) => p.join('.'))).toEqual(expect.arrayContaining(['payload.authorization.value', 'payload.authorization.validAfter', 'payload.authorization.validBefore']));
  await fc.assert(
    fc.asyncProperty(fc.constantFrom(...paths), hostile, async (path, leaf) => {
      const signed = (await payerFor(wallet)(required())) as unknown as Json;
      const before = stored();
      const answer = await send(withLeaf(signed, path, leaf));
      expect(answer.status, `${path.join('.')} = ${JSON.stringify(leaf)}`).toBeLessThan(500);
      const after = stored();
      expect(after.errors).toBe(before.errors);
      // A field the service does not bind (say `accepted.extra.name`) may leave a valid payment: then it is paid once.
      if (!answer.ok) expect(after).toEqual(before);
    }),
    { numRuns: 120 },
  );
}

describe('a payment with any field replaced by any string', () => {
  it('in PAYMENT-SIGNATURE: never a 5xx, and a refusal stores and charges nothing', async () => {
    await sweep(
      () => httpRequired,
      async (payload) => {
        const res = await post({ 'payment-signature': Buffer.from(JSON.stringify(payload), 'utf8').toString('base64') });
        await res.arrayBuffer();
        return { status: res.status, ok: res.ok };
      },
    );
  });

  it('in _meta["x402/payment"]: never INTERNAL_ERROR, and a refusal stores and charges nothing', async () => {
    await sweep(
      () => mcpRequired,
      async (payload) => {
        const result = await call(agent, 'create_token', body, { [PAYMENT_META]: payload as unknown as PaymentPayload });
        if (!result.isError) return { status: 200, ok: true };
        const { error } = envelopeOf(result);
        return { status: error.code === 'INTERNAL_ERROR' ? 500 : 402, ok: false };
      },
    );
  });

  it('names the field of a number that is no uint256 (402 invalid_payload), on both transports', async () => {
    for (const field of ['value', 'validAfter', 'validBefore']) {
      const signed = (await payerFor(wallet)(httpRequired)) as unknown as Json;
      const res = await post({ 'payment-signature': Buffer.from(JSON.stringify(withLeaf(signed, ['payload', 'authorization', field], '1e6'))).toString('base64') });
      expect(res.status).toBe(402);
      expect(((await res.json()) as { error: unknown }).error).toMatchObject({ code: 'PAYMENT_INVALID', details: { reason: 'invalid_payload', field: `payload.authorization.${field}` } });
      const viaMcp = await call(agent, 'create_token', body, { [PAYMENT_META]: withLeaf(signed, ['payload', 'authorization', field], '1.5') as unknown as PaymentPayload });
      expect(envelopeOf(viaMcp).error).toMatchObject({ code: 'PAYMENT_INVALID', details: { reason: 'invalid_payload', field: `payload.authorization.${field}` } });
    }
  });
});
