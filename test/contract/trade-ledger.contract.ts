import { describe, expect, it } from 'vitest';
import { PRODUCTION, TESTNET } from '../../src/domain/network.js';
import { at, token, trade } from '../support/fixtures.js';
import { withUow, type UowFactory } from './uow-factory.js';

export function tradeLedgerContract(name: string, make: UowFactory) {
  describe(`TradeLedger contract: ${name}`, () => {
    it('records trades exactly and lists a token’s trades newest first with a cursor', () =>
      withUow(make, async (uow) => {
        const trades = Array.from({ length: 7 }, (_, i) =>
          trade({ tokenId: 'tok_A', createdAt: at(i * 1000), tokenAmount: 10n ** 27n + BigInt(i), paymentId: `pay_${i}`, settlementTx: `0x${i}` }),
        );
        await uow.transaction(async (s) => {
          for (const t of trades) await s.trades.record(t);
          await s.trades.record(trade({ tokenId: 'tok_B' }));
        });
        const first = await uow.run((s) => s.trades.listByToken('tok_A', { limit: 3 }));
        expect(first.items).toEqual([...trades].reverse().slice(0, 3));
        const second = await uow.run((s) => s.trades.listByToken('tok_A', { limit: 3, cursor: first.nextCursor! }));
        const third = await uow.run((s) => s.trades.listByToken('tok_A', { limit: 3, cursor: second.nextCursor! }));
        expect([...first.items, ...second.items, ...third.items]).toEqual([...trades].reverse());
        expect(third.nextCursor).toBeNull();
      }));

    it('answers time windows: between, activity since, last before', () =>
      withUow(make, async (uow) => {
        const t1 = trade({ tokenId: 'tok_A', createdAt: at(0), usdAmount: 1_000_000n });
        const t2 = trade({ tokenId: 'tok_A', createdAt: at(60_000), usdAmount: 2_000_000n, side: 'sell' });
        const t3 = trade({ tokenId: 'tok_A', createdAt: at(120_000), usdAmount: 4_000_000n });
        await uow.transaction(async (s) => {
          for (const t of [t1, t2, t3]) await s.trades.record(t);
        });
        expect(await uow.run((s) => s.trades.between('tok_A', at(0), at(120_000)))).toEqual([t1, t2]);
        expect(await uow.run((s) => s.trades.activitySince('tok_A', at(60_000)))).toEqual({ volumeUsd: 6_000_000n, trades: 2 });
        expect(await uow.run((s) => s.trades.activitySince('tok_B', at(0)))).toEqual({ volumeUsd: 0n, trades: 0 });
        expect(await uow.run((s) => s.trades.lastBefore('tok_A', at(120_000)))).toEqual(t2);
        expect(await uow.run((s) => s.trades.lastBefore('tok_A', at(0)))).toBeNull();
      }));

    it('sums stats per network, production first', () =>
      withUow(make, async (uow) => {
        await uow.transaction(async (s) => {
          await s.tokens.insert(token({ network: TESTNET }));
          await s.tokens.insert(token({ network: TESTNET }));
          await s.tokens.insert(token({ network: PRODUCTION }));
          await s.trades.record(trade({ network: TESTNET, usdAmount: 5_000_000n, feeUsd: 50_000n }));
          await s.trades.record(trade({ network: TESTNET, usdAmount: 1_000_000n, feeUsd: 10_000n }));
        });
        expect(await uow.run((s) => s.trades.stats())).toEqual([
          { network: PRODUCTION, tokens: 1, trades: 0, volumeUsd: 0n, feesUsd: 0n },
          { network: TESTNET, tokens: 2, trades: 2, volumeUsd: 6_000_000n, feesUsd: 60_000n },
        ]);
      }));
  });
}
