/**
 * The booking rules of transfers on chain (docs/decisions/0020): which logs change positions,
 * what they do to cost basis and PnL, and — over random histories of buys, sells, transfers
 * between wallets, trades straight on the pool and burns, with the indexer reading the chain
 * late and sells arriving before it — that every position ends equal to the wallet's balance on
 * chain, that transfers between wallets conserve the books, and that nothing goes negative.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { BURN_ADDRESS } from '../../src/domain/graduation.js';
import { applyBuy, applySell, applyTransferIn, applyTransferOut, emptyPosition, withTransfersIn, type Position } from '../../src/domain/position.js';
import { bookingOf, bookTransfer, holdsPositions, ZERO_ADDRESS } from '../../src/domain/transfer.js';

const NET = 'eip155:84532' as const;
const T = new Date(0);
const CUSTODY = '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266';
const PAIR = '0x00000000000000000000000000000000000000Fa';
const [A, B, C] = ['0x00000000000000000000000000000000000000a1', '0x00000000000000000000000000000000000000b2', '0x00000000000000000000000000000000000000C3'];
const SEEDER = '0x4C61756E6368466163746f727900000000000000';
const parties = (over: { servicePull?: boolean; pair?: string | null } = {}) => ({ custody: CUSTODY, pair: PAIR, seeder: SEEDER, servicePull: false, ...over });
const pos = (wallet: string, balance: bigint, costBasisUsd: bigint, over: Partial<Position> = {}): Position => ({
  ...emptyPosition(NET, wallet, 'tok_1', T),
  balance,
  costBasisUsd,
  ...over,
});

describe('which transfers change positions', () => {
  it.each([
    ['wallet → wallet', A, B, {}, 'move'],
    ['custody → wallet (a delivery, booked by its buy)', CUSTODY, A, {}, 'none'],
    ['the mint to custody', ZERO_ADDRESS, CUSTODY, {}, 'none'],
    ['wallet → custody in a service pull (booked by its sell)', A, CUSTODY, { servicePull: true }, 'none'],
    ['wallet → custody on its own', A, CUSTODY, {}, 'out'],
    ['custody → pair (graduation, a pool sell)', CUSTODY, PAIR, {}, 'none'],
    ['pair → custody (a pool buy)', PAIR, CUSTODY, {}, 'none'],
    ['pair → wallet (a trade straight on the pool)', PAIR, A, {}, 'in'],
    ['wallet → pair', A, PAIR, {}, 'out'],
    ['wallet → 0x…dEaD (a burn)', A, BURN_ADDRESS, {}, 'out'],
    ['zero address → wallet', ZERO_ADDRESS, A, {}, 'in'],
    ['a wallet to itself', A, A.toUpperCase().replace('0X', '0x'), {}, 'none'],
    ['custody → the pool seeder (a graduation seed pulls the unsold supply)', CUSTODY, SEEDER, {}, 'none'],
    ['pool seeder → pair, and pair → pool seeder (the seed’s deposit and correcting swap)', SEEDER, PAIR, {}, 'none'],
    ['pair → pool seeder', PAIR, SEEDER, {}, 'none'],
    ['pool seeder → 0x…dEaD (tokens the pool did not need, burned)', SEEDER, BURN_ADDRESS, {}, 'none'],
  ] as const)('%s: %s', (_label, from, to, over, expected) => {
    expect(bookingOf({ from, to, amount: 5n }, parties(over))).toBe(expected);
  });

  it('addresses in any case; a zero amount books nothing; without a known pair the pair is a wallet', () => {
    expect(holdsPositions(CUSTODY.toLowerCase(), parties())).toBe(false);
    expect(holdsPositions(BURN_ADDRESS.toLowerCase(), parties())).toBe(false);
    expect(bookingOf({ from: A, to: B, amount: 0n }, parties())).toBe('none');
    expect(bookingOf({ from: A, to: PAIR, amount: 1n }, parties({ pair: null }))).toBe('move');
  });
});

describe('what a transfer does to cost basis and PnL', () => {
  it('the sender’s average cost moves with the tokens (rounded down), and neither realizes anything', () => {
    const out = applyTransferOut(pos(A, 3n, 10n, { realizedPnlUsd: -4n }), 1n, T);
    expect(out.basisUsd).toBe(3n); // floor(10 · 1 / 3)
    expect(out.position).toMatchObject({ balance: 2n, costBasisUsd: 7n, realizedPnlUsd: -4n });
    const received = applyTransferIn(pos(B, 5n, 20n), 1n, out.basisUsd, T);
    expect(received).toMatchObject({ balance: 6n, costBasisUsd: 23n, realizedPnlUsd: 0n });
  });

  it('everything sent takes the whole basis; tokens from the pool arrive at cost 0', () => {
    const out = applyTransferOut(pos(A, 3n, 10n), 3n, T);
    expect(out).toMatchObject({ basisUsd: 10n, shortfall: 0n, position: { balance: 0n, costBasisUsd: 0n } });
    const booked = bookTransfer('in', { network: NET, tokenId: 'tok_1', from: PAIR, to: C, amount: 9n }, { from: null, to: null }, T);
    expect(booked.to).toMatchObject({ wallet: C, balance: 9n, costBasisUsd: 0n, realizedPnlUsd: 0n });
  });

  it('tokens leaving to the pool or a burn leave at average cost: the rest keeps its average', () => {
    const booked = bookTransfer('out', { network: NET, tokenId: 'tok_1', from: A, to: PAIR, amount: 4n }, { from: pos(A, 8n, 80n), to: null }, T);
    expect(booked.from).toMatchObject({ balance: 4n, costBasisUsd: 40n, realizedPnlUsd: 0n });
    expect(booked.to).toBeNull();
  });

  it('a transfer beyond the sender’s position moves what it holds; the rest was sold already and is taken from what arrives later', () => {
    // A had 2 booked, sent them on chain, then sold 2 before the indexer saw that transfer:
    // the sell's 2 came out of the 3 that reach A later.
    expect(applyTransferOut(pos(A, 2n, 10n), 5n, T)).toMatchObject({ basisUsd: 10n, shortfall: 3n, position: { balance: 0n, costBasisUsd: 0n, prebookedIn: 3n } });
    expect(bookTransfer('move', { network: NET, tokenId: 'tok_1', from: A, to: B, amount: 5n }, { from: null, to: null }, T)).toMatchObject({
      from: null,
      shortfall: 5n,
      to: { balance: 5n, costBasisUsd: 0n },
    });
  });

  it('tokens a sell already booked are not booked again; their basis comes off realized PnL', () => {
    // B received 10 by transfer and sold 4 before the indexer saw the transfer: 4 entered at cost 0.
    let b = applySell(withTransfersIn(emptyPosition(NET, B, 'tok_1', T), 4n, T), 4n, 40n, T);
    expect(b).toMatchObject({ balance: 0n, realizedPnlUsd: 40n, prebookedIn: 4n });
    // The transfer arrives with the sender's basis of 50 for the 10 tokens: 20 of it was sold.
    b = applyTransferIn(b, 10n, 50n, T);
    expect(b).toMatchObject({ balance: 6n, costBasisUsd: 30n, realizedPnlUsd: 20n, prebookedIn: 0n });
  });
});

// ── The property ────────────────────────────────────────────────────────────────────────────

const WALLETS = [A, B, C];
const EVERYONE = [...WALLETS, PAIR, BURN_ADDRESS, CUSTODY];
const lower = (a: string) => a.toLowerCase();

type Op =
  | { kind: 'buy'; wallet: number; tokens: bigint; usd: bigint }
  | { kind: 'sell'; wallet: number; share: number; usd: bigint }
  | { kind: 'transfer'; from: number; to: number; share: number }
  | { kind: 'index'; logs: number }
  | { kind: 'deliver'; count: number };

const op: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ kind: fc.constant('buy' as const), wallet: fc.nat(2), tokens: fc.bigInt(1n, 10n ** 27n), usd: fc.bigInt(1n, 10n ** 10n) }),
  fc.record({ kind: fc.constant('sell' as const), wallet: fc.nat(2), share: fc.integer({ min: 1, max: 100 }), usd: fc.bigInt(0n, 10n ** 10n) }),
  // From a wallet or the pool; to a wallet, the pool, the burn address or custody (on its own).
  fc.record({ kind: fc.constant('transfer' as const), from: fc.nat(3), to: fc.nat(5), share: fc.integer({ min: 1, max: 100 }) }),
  fc.record({ kind: fc.constant('index' as const), logs: fc.nat(4) }),
  fc.record({ kind: fc.constant('deliver' as const), count: fc.nat(3) }),
);

describe('books = chain, over any history', () => {
  it('once the indexer has read everything, every position equals its wallet’s balance; transfers between wallets conserve the books', () => {
    fc.assert(
      fc.property(fc.array(op, { maxLength: 60 }), (ops) => {
        const SUPPLY = 10n ** 30n;
        const chain = new Map<string, bigint>([[lower(CUSTODY), SUPPLY - 10n ** 28n], [lower(PAIR), 10n ** 28n]]);
        const books = new Map<string, Position>();
        const pending: { from: string; to: string; amount: bigint; servicePull: boolean }[] = [];
        const deliveries: { wallet: string; tokens: bigint }[] = [];
        const bal = (a: string) => chain.get(lower(a)) ?? 0n;
        const move = (from: string, to: string, amount: bigint, servicePull = false) => {
          chain.set(lower(from), bal(from) - amount);
          chain.set(lower(to), bal(to) + amount);
          pending.push({ from, to, amount, servicePull });
        };
        const held = (w: string) => books.get(lower(w)) ?? null;
        const sums = () =>
          [...books.values()].reduce(
            (s, p) => ({ balance: s.balance + p.balance, unsold: s.unsold + p.balance - p.prebookedIn, cost: s.cost + p.costBasisUsd - p.realizedPnlUsd }),
            { balance: 0n, unsold: 0n, cost: 0n },
          );
        const index = (n: number) => {
          for (const log of pending.splice(0, n)) {
            const kind = bookingOf({ ...log }, parties({ servicePull: log.servicePull }));
            if (kind === 'none') continue;
            const before = sums();
            const ahead = held(log.to)?.prebookedIn ?? 0n;
            const booked = bookTransfer(kind, { network: NET, tokenId: 'tok_1', ...log }, { from: held(log.from), to: held(log.to) }, T);
            if (booked.from) books.set(lower(log.from), booked.from);
            if (booked.to) books.set(lower(log.to), booked.to);
            if (kind === 'move') {
              // Between wallets: Σ (cost basis − realized PnL) is conserved, and so is Σ balance —
              // unless a sell booked before this transfer already counted some of its tokens
              // (Σ balance − prebooked is conserved then).
              const after = sums();
              expect([after.unsold, after.cost]).toEqual([before.unsold, before.cost]);
              if (ahead === 0n && booked.shortfall === 0n) expect(after.balance).toBe(before.balance);
            }
          }
        };
        for (const o of ops) {
          if (o.kind === 'buy') {
            const owed = deliveries.reduce((s, d) => s + d.tokens, 0n);
            if (bal(CUSTODY) - owed < o.tokens) continue;
            const w = WALLETS[o.wallet]!;
            books.set(lower(w), applyBuy(held(w) ?? emptyPosition(NET, w, 'tok_1', T), o.tokens, o.usd, T));
            deliveries.push({ wallet: w, tokens: o.tokens }); // booked now, delivered later
          } else if (o.kind === 'deliver') {
            for (const d of deliveries.splice(0, o.count)) move(CUSTODY, d.wallet, d.tokens);
          } else if (o.kind === 'sell') {
            const w = WALLETS[o.wallet]!;
            const tokens = (bal(w) * BigInt(o.share)) / 100n;
            if (tokens === 0n) continue;
            move(w, CUSTODY, tokens, true); // the pull, then the sell books it
            books.set(lower(w), applySell(withTransfersIn(held(w) ?? emptyPosition(NET, w, 'tok_1', T), tokens, T), tokens, o.usd, T));
          } else if (o.kind === 'transfer') {
            const from = EVERYONE[o.from]!;
            const to = EVERYONE[o.to]!;
            const amount = (bal(from) * BigInt(o.share)) / 100n;
            if (amount > 0n && lower(from) !== lower(to)) move(from, to, amount);
          } else index(o.logs);
          for (const p of books.values()) {
            expect(p.balance >= 0n && p.prebookedIn >= 0n).toBe(true);
          }
        }
        for (const d of deliveries.splice(0)) move(CUSTODY, d.wallet, d.tokens);
        index(pending.length);
        for (const w of WALLETS) expect(held(w)?.balance ?? 0n).toBe(bal(w));
        for (const nobody of [CUSTODY, PAIR, BURN_ADDRESS]) expect(held(nobody)).toBeNull();
        // Custody holds the supply less the wallets' positions, the pool's and what was burned.
        expect(bal(CUSTODY)).toBe(SUPPLY - sums().balance - bal(PAIR) - bal(BURN_ADDRESS));
      }),
      { numRuns: 300 },
    );
  });
});
