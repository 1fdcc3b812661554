/**
 * What the transfer indexer keeps (docs/decisions/0020): its cursor per network moved by
 * compare-and-set, each transfer booked once, and the reads it makes of other stores — the
 * tokens to follow, a pull found by its transaction, a position's prebooked tokens.
 */
import { describe, expect, it } from 'vitest';
import { PRODUCTION, TESTNET } from '../../src/domain/network.js';
import type { BookedTransfer, TransferCursor } from '../../src/ports/transfer-store.js';
import { at, OTHER, position, T0, token, WALLET } from '../support/fixtures.js';
import { withUow, type UowFactory } from './uow-factory.js';

const cursor = (over: Partial<TransferCursor> = {}): TransferCursor => ({
  network: TESTNET,
  blockNumber: 100n,
  blockHash: `0x${'ab'.repeat(32)}`,
  headBlock: 105n,
  confirmations: 0,
  updatedAt: T0,
  ...over,
});

let n = 0;
const transfer = (over: Partial<BookedTransfer> = {}): BookedTransfer => ({
  network: TESTNET,
  token: '0x00000000000000000000000000000000000070c0',
  tokenId: 'tok_X',
  from: WALLET,
  to: OTHER,
  amount: 10n ** 27n + 1n,
  blockNumber: 101n,
  blockHash: `0x${'cd'.repeat(32)}`,
  txHash: `0x${(n += 1).toString(16).padStart(64, '0')}`,
  logIndex: 3,
  txLogIndex: 0,
  bookedAt: T0,
  ...over,
});

export function transferStoreContract(name: string, make: UowFactory) {
  describe(`TransferStore contract: ${name}`, () => {
    it('creates a network’s cursor once, then moves it only from where it is', () =>
      withUow(make, async (uow) => {
        expect(await uow.run((s) => s.transfers.cursor(TESTNET))).toBeNull();
        const start = cursor({ blockNumber: -1n, blockHash: null });
        expect(await uow.transaction((s) => s.transfers.advance(start, null))).toBe(true);
        expect(await uow.transaction((s) => s.transfers.advance(cursor({ blockNumber: 7n }), null))).toBe(false); // exists already
        expect(await uow.run((s) => s.transfers.cursor(TESTNET))).toEqual(start);

        const next = cursor({ blockNumber: 2n ** 40n, headBlock: 2n ** 40n + 12n, confirmations: 10, updatedAt: at(1) });
        expect(await uow.transaction((s) => s.transfers.advance(next, -1n))).toBe(true);
        expect(await uow.transaction((s) => s.transfers.advance(cursor({ blockNumber: 5n }), -1n))).toBe(false); // moved meanwhile
        expect(await uow.run((s) => s.transfers.cursor(TESTNET))).toEqual(next);
        expect(await uow.run((s) => s.transfers.cursor(PRODUCTION))).toBeNull();
      }));

    it('books a transfer once per (network, transaction, place in it), exactly, and lists them from a block in chain order', () =>
      withUow(make, async (uow) => {
        const a = transfer({ blockNumber: 101n, logIndex: 4 });
        const b = transfer({ blockNumber: 101n, logIndex: 2, txHash: a.txHash, txLogIndex: 1 });
        const c = transfer({ blockNumber: 9n });
        const elsewhere = transfer({ network: PRODUCTION, txHash: a.txHash, blockNumber: 500n });
        expect(await uow.transaction((s) => s.transfers.record(a))).toBe(true);
        // The same log again — read twice, or mined again in another block by a reorganisation.
        expect(await uow.transaction((s) => s.transfers.record({ ...a, txHash: a.txHash.toUpperCase().replace('0X', '0x'), blockNumber: 102n, logIndex: 0 }))).toBe(false);
        for (const t of [b, c, elsewhere]) expect(await uow.transaction((s) => s.transfers.record(t))).toBe(true);
        const since = await uow.run((s) => s.transfers.bookedSince(TESTNET, 10n));
        expect(since).toEqual([b, a]);
        expect(await uow.run((s) => s.transfers.bookedSince(TESTNET, 0n))).toHaveLength(3);
        expect(await uow.run((s) => s.transfers.bookedSince(PRODUCTION, 0n))).toEqual([elsewhere]);
      }));

    it('forgets a booking when its unit of work rolls back', () =>
      withUow(make, async (uow) => {
        const t = transfer();
        await expect(
          uow.transaction(async (s) => {
            await s.transfers.record(t);
            await s.transfers.advance(cursor(), null);
            throw new Error('crash');
          }),
        ).rejects.toThrow('crash');
        expect(await uow.run((s) => s.transfers.bookedSince(TESTNET, 0n))).toEqual([]);
        expect(await uow.run((s) => s.transfers.cursor(TESTNET))).toBeNull();
        expect(await uow.transaction((s) => s.transfers.record(t))).toBe(true);
      }));

    it('lists a network’s tokens that have an address, with their deployment block and pair', () =>
      withUow(make, async (uow) => {
        const pending = token({ tokenId: 'tok_B', symbol: 'B', address: '0x00000000000000000000000000000000000000b1' });
        const deployed = token({
          tokenId: 'tok_A',
          symbol: 'A',
          address: '0x00000000000000000000000000000000000000a1',
          deployment: { state: 'DEPLOYED', txHash: '0x01', blockNumber: 77n },
          pool: { dex: 'uniswap-v2', state: 'CREATED', address: '0x00000000000000000000000000000000000000a2', txHash: '0x02' },
        });
        await uow.transaction(async (s) => {
          for (const t of [pending, deployed, token({ symbol: 'OLD', address: null }), token({ symbol: 'MAIN', network: PRODUCTION })]) await s.tokens.insert(t);
        });
        expect(await uow.run((s) => s.tokens.listOnChain(TESTNET))).toEqual([
          { tokenId: 'tok_A', address: deployed.address, deployedBlock: 77n, deployed: true, pair: '0x00000000000000000000000000000000000000a2' },
          { tokenId: 'tok_B', address: pending.address, deployedBlock: null, deployed: false, pair: null },
        ]);
      }));

    it('finds a pull by its current transaction on its network', () =>
      withUow(make, async (uow) => {
        const pull = { paymentId: 'pay_1', network: TESTNET, tokenId: 'tok_X', txHash: `0x${'1a'.repeat(32)}`, rawTx: '0x02', createdAt: T0 };
        await uow.transaction((s) => s.pulls.record(pull));
        expect(await uow.run((s) => s.pulls.byTransaction(TESTNET, pull.txHash.toUpperCase().replace('0X', '0x')))).toEqual(pull);
        expect(await uow.run((s) => s.pulls.byTransaction(PRODUCTION, pull.txHash))).toBeNull();
        const resigned = { ...pull, txHash: `0x${'2b'.repeat(32)}` };
        await uow.transaction((s) => s.pulls.replace(resigned, pull.txHash));
        expect(await uow.run((s) => s.pulls.byTransaction(TESTNET, pull.txHash))).toBeNull();
        expect(await uow.run((s) => s.pulls.byTransaction(TESTNET, resigned.txHash))).toEqual(resigned);
      }));

    it('keeps a position’s prebooked tokens exactly', () =>
      withUow(make, async (uow) => {
        const p = position({ tokenId: 'tok_P', prebookedIn: 10n ** 27n + 7n });
        await uow.transaction((s) => s.positions.save(p));
        expect(await uow.run((s) => s.positions.get(TESTNET, WALLET, 'tok_P'))).toEqual(p);
      }));
  });
}
