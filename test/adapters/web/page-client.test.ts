/**
 * The page's API client (docs/decisions/0043): it requests each free read by its operation name at
 * the path its catalogue entry routes, so a path is written once — in the entry; the page's build
 * writes the paths into the bundle as READ_PATHS, which this test sets the same way. The URLs are
 * the ones the page wrote by hand before.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { readUrl as ReadUrl } from '../../../src/adapters/web/browser/api.js';
import { readPaths } from '../../../src/adapters/web/esbuild/page-files.js';

let readUrl: typeof ReadUrl;
beforeAll(async () => {
  Object.assign(globalThis, { READ_PATHS: readPaths() }); // what esbuild's define writes into the bundle
  ({ readUrl } = await import('../../../src/adapters/web/browser/api.js'));
});

const TOKEN = 'tok_01JD5Y0000000000000000000A';
const WALLET = '0x1111111111111111111111111111111111111111';

describe("the page's client", () => {
  it('fills each path parameter, encoded, and appends the query as the page wrote it by hand', () => {
    expect(readUrl('get_token', { id: TOKEN })).toBe(`/tokens/${TOKEN}`);
    expect(readUrl('get_token', { id: 'a/b c' })).toBe('/tokens/a%2Fb%20c');
    expect(readUrl('list_tokens', {}, { sort: 'created', q: '', network: null, limit: 24, cursor: null })).toBe('/tokens?sort=created&limit=24');
    expect(readUrl('candles', { id: TOKEN }, { interval: '5m' })).toBe(`/api/tokens/${TOKEN}/candles?interval=5m`);
    expect(readUrl('list_trades', { id: TOKEN }, { limit: 50 })).toBe(`/api/tokens/${TOKEN}/trades?limit=50`);
    expect(readUrl('holders', { id: TOKEN }, { limit: 20 })).toBe(`/api/tokens/${TOKEN}/holders?limit=20`);
    expect(readUrl('quote', {}, { tokenId: TOKEN, side: 'buy', usdAmount: '1' })).toBe(`/api/quote?tokenId=${TOKEN}&side=buy&usdAmount=1`);
    expect(readUrl('sell_authorization', { id: TOKEN }, { wallet: WALLET, tokens: '10' })).toBe(`/api/tokens/${TOKEN}/sell-authorization?wallet=${WALLET}&tokens=10`);
    expect(readUrl('list_positions', {}, { wallet: WALLET, network: 'eip155:84532' })).toBe(`/positions?wallet=${WALLET}&network=eip155%3A84532`);
    expect(readUrl('earnings', { address: WALLET })).toBe(`/api/wallets/${WALLET}/earnings`);
    expect(readUrl('get_payment', { paymentId: 'pay_1' })).toBe('/api/payments/pay_1');
    expect(readUrl('get_delivery', { deliveryId: 'dlv_1' })).toBe('/api/deliveries/dlv_1');
    expect(readUrl('get_payout', { payoutId: 'pout_1' })).toBe('/api/payouts/pout_1');
    expect(readUrl('stats')).toBe('/api/stats');
  });
});
