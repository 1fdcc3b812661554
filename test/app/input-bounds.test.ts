/**
 * Every amount and price a caller names is bounded before any 402 by what both databases store
 * (issue 51, point 9: a 61–100-digit trigger was charged on PostgreSQL, then failed its insert with
 * "numeric field overflow"; on SQLite it stayed OPEN for ever). Every field of every operation's
 * schema that is not free text refuses a 79- and a 100-digit number; the largest values the schemas
 * take are stored and read back exactly on SQLite and PostgreSQL.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { entrypoints } from '../../src/app/catalogue.js';
import { reads } from '../../src/app/catalogue.js';
import { placeOrderInput } from '../../src/app/orders/schemas.js';
import { createTokenInput } from '../../src/app/tokens/schemas.js';
import { pledgeInput } from '../../src/app/raises/schemas.js';
import { MAX_USD_INPUT, parseAmount, parseTokens, parseUsd, UINT256_LIMIT } from '../../src/domain/money.js';
import { TESTNET } from '../../src/domain/network.js';
import { newRaise } from '../../src/domain/raise.js';
import type { UnitOfWork } from '../../src/ports/unit-of-work.js';
import { order } from '../contract/order-store.contract.js';
import { testDatabases } from '../support/databases.js';
import { at } from '../support/fixtures.js';

/** Fields whose value is text, never a number (their own rules bound them, and text columns hold any length). */
const TEXT = new Set(['name', 'symbol', 'description', 'imageUrl', 'image', 'website', 'twitter', 'telegram', 'text', 'q', 'cursor']);

/** Each field of an object schema, nested objects walked, with its path; optional and default wrappers taken off. */
function fields(schema: z.ZodType, path: string[] = []): [string, z.ZodType][] {
  let s = schema;
  while (s instanceof z.ZodOptional || s instanceof z.ZodDefault) s = s.unwrap() as z.ZodType;
  if (s instanceof z.ZodObject) return Object.entries(s.shape as Record<string, z.ZodType>).flatMap(([k, v]) => fields(v, [...path, k]));
  return [[path.join('.'), schema]];
}

describe('the bounds of every amount, before any 402', () => {
  const schemas: [string, z.ZodType][] = [...entrypoints().map((e) => [e.name, e.inputSchema] as [string, z.ZodType]), ...reads().map((r) => [r.operation, r.inputSchema] as [string, z.ZodType])];

  it('no field of any operation that is not free text takes a number of 79 or 100 digits', () => {
    const taken: string[] = [];
    for (const [operation, schema] of schemas) {
      for (const [path, field] of fields(schema)) {
        if (TEXT.has(path.split('.').at(-1)!)) continue;
        for (const digits of [79, 100]) if (field.safeParse('9'.repeat(digits)).success) taken.push(`${operation}.${path} (${digits} digits)`);
      }
    }
    expect(taken).toEqual([]);
  });

  it('every USD amount takes $10^12 and no more; every token amount any uint256, and no more', () => {
    const usd = '1000000000000';
    let checked = 0;
    for (const [operation, schema] of schemas) {
      for (const [path, field] of fields(schema)) {
        const leaf = path.split('.').at(-1)!;
        if (/usd|Usd$/i.test(leaf)) {
          checked++;
          expect(field.safeParse(usd).success, `${operation}.${path}`).toBe(true);
          expect(field.safeParse(`${usd}.000001`).success, `${operation}.${path}`).toBe(false);
        }
      }
    }
    expect(checked).toBeGreaterThanOrEqual(13); // every usdAmount, maxUsd, minUsdOut, goalUsd, maxPerWalletUsd, initialBuyUsd, triggerPriceUsd
    const tokens = placeOrderInput.shape.tokens;
    expect(tokens.safeParse('115792089237316195423570985008687907853269984665640564039457.584007913129639935').success).toBe(true); // 2^256 − 1 units
    expect(tokens.safeParse('115792089237316195423570985008687907853269984665640564039457.584007913129639936').success).toBe(false);
    expect(placeOrderInput.shape.triggerPriceUsd.safeParse('1000000000000').success).toBe(true);
    expect(placeOrderInput.shape.triggerPriceUsd.safeParse('1000000000000.000000000000000001').success).toBe(false);
    expect(pledgeInput.shape.usdAmount.safeParse('0').success).toBe(false);
    expect(createTokenInput.shape.launch.unwrap().shape.maxPerWalletUsd.safeParse('9'.repeat(100)).success).toBe(false);
  });
});

describe.each(testDatabases('bounds'))('the largest amounts the schemas take, on %s', (_name, openStore) => {
  let uow: UnitOfWork;
  let cleanup: () => Promise<void>;
  beforeAll(async () => {
    ({ uow, cleanup } = await openStore());
  });
  afterAll(async () => {
    await uow?.close();
    await cleanup?.();
  });

  it('are stored and read back exactly: an order, a raise', async () => {
    const most = {
      triggerPrice: parseAmount('1000000000000', 18),
      tokens: UINT256_LIMIT - 1n,
      usd: MAX_USD_INPUT,
    };
    expect(parseUsd('1000000000000')).toBe(MAX_USD_INPUT);
    const sell = order('ord_most_sell', { kind: 'take_profit', triggerPrice: most.triggerPrice, usdAmount: null, tokens: most.tokens, minTokensOut: null, minUsdOut: most.usd, asset: null });
    const buy = order('ord_most_buy', { triggerPrice: most.triggerPrice, usdAmount: most.usd, minTokensOut: parseTokens('115792089237316195423570985008687907853269984665640564039457.584007913129639935') });
    const raise = { ...newRaise({ tokenId: 'tok_most', network: TESTNET, terms: { goalUsd: most.usd, durationSeconds: 60, maxPerWalletUsd: most.usd }, now: at(0), endsAt: at(60_000) }) };
    await uow.transaction(async (s) => {
      await s.orders.insert(sell);
      await s.orders.insert(buy);
      await s.raises.insert(raise);
    });
    expect(await uow.run((s) => s.orders.get('ord_most_sell'))).toEqual(sell);
    expect(await uow.run((s) => s.orders.get('ord_most_buy'))).toEqual(buy);
    expect(await uow.run((s) => s.raises.get('tok_most'))).toEqual(raise);
  });
});
