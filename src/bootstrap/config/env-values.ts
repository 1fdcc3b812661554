/** How one environment variable's text becomes a value: the parsers every part of the configuration shares. */
import { z } from 'zod';
import { parseTokens, parseUsd } from '../../domain/money.js';
import { parseUsdPrice } from '../../domain/usd-price.js';

/** The environment as the service reads it; each part of the configuration names its variables. */
export type Env = Record<string, string | undefined>;

/** The parsed values of one part's variables. */
export type Parsed<S extends z.ZodRawShape> = z.output<z.ZodObject<S>>;

export const address = z.string().regex(/^0x[0-9a-fA-F]{40}$/, 'must be a 0x address');
export const privateKey = z.string().regex(/^0x[0-9a-fA-F]{64}$/, 'must be a 32-byte hex private key');
export const usd = z.string().transform((v, ctx) => {
  try {
    return parseUsd(v);
  } catch {
    ctx.addIssue({ code: 'custom', message: 'must be a USD decimal string' });
    return z.NEVER;
  }
});
export const tokens = z.string().transform((v, ctx) => {
  try {
    return parseTokens(v);
  } catch {
    ctx.addIssue({ code: 'custom', message: 'must be a token decimal string' });
    return z.NEVER;
  }
});
export const flag = z.enum(['true', 'false', '1', '0']).transform((v) => v === 'true' || v === '1');
export const price = z.string().transform((v, ctx) => {
  try {
    return parseUsdPrice(v);
  } catch {
    ctx.addIssue({ code: 'custom', message: 'must be a positive decimal price, e.g. "0.98"' });
    return z.NEVER;
  }
});
