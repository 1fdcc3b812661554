/**
 * Where a token trades (app/trading/venues): one chooser for every buy, sell, quote and plan —
 * its curve while ACTIVE, its pool once graduated and the pool exists, its curve again for sells
 * when the pool failed (decision 0023), and TOKEN_GRADUATED, with the details a caller sees,
 * everywhere else.
 */
import { describe, expect, it } from 'vitest';
import { venueFor } from '../../src/app/trading/venues/venue-for.js';
import { type DomainError } from '../../src/domain/errors.js';
import type { PoolSummary } from '../../src/domain/graduation.js';
import type { Token } from '../../src/domain/token.js';
import { makeDeps } from '../support/app-harness.js';
import { token, T0 } from '../support/fixtures.js';

const pool = (state: PoolSummary['state']): PoolSummary => ({ dex: 'uniswap-v2', state, address: null, txHash: null });
const graduated = (p: PoolSummary | null): Token => token({ tokenId: 'tok_G', state: 'GRADUATED', graduatedAt: T0, pool: p });

function where(t: Token, side: 'buy' | 'sell'): string | object {
  try {
    return venueFor(makeDeps(), t, side).name;
  } catch (e) {
    const err = e as DomainError;
    return { code: err.code, details: err.details };
  }
}

describe('venueFor', () => {
  it.each([
    ['ACTIVE', 'curve', 'curve', token()],
    ['GRADUATED, pool PENDING', { code: 'TOKEN_GRADUATED', details: { tokenId: 'tok_G' } }, { code: 'TOKEN_GRADUATED', details: { tokenId: 'tok_G' } }, graduated(pool('PENDING'))],
    ['GRADUATED, pool CREATED', 'uniswap-v2', 'uniswap-v2', graduated(pool('CREATED'))],
    ['GRADUATED, pool FAILED', { code: 'TOKEN_GRADUATED', details: { tokenId: 'tok_G', sellsOnCurve: true } }, 'curve', graduated(pool('FAILED'))],
  ])('%s: buys go to %j, sells to %j', (_state, buy, sell, t) => {
    expect(where(t, 'buy')).toEqual(buy);
    expect(where(t, 'sell')).toEqual(sell);
  });
});
