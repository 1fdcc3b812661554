/**
 * Custody's one rule for what it sends (app/custody/exactly-once-sender.ts), over a scripted
 * chain: the signed transaction is recorded before it is broadcast; a retry after a crash
 * follows the recorded one and signs nothing; a dropped one is signed again exactly once, however
 * many retries race; a record that fails hands its nonce back, so the next transaction custody
 * signs is not stuck behind a nonce that will never be used; a refusal of the checks before the
 * first signature is recorded in the transaction's place, so two copies of one operation that
 * checked a moment apart never both refuse and send (docs/decisions/0059).
 */
import { describe, expect, it } from 'vitest';
import { MemoryUnitOfWork } from '../../src/adapters/persistence/memory/memory-unit-of-work.js';
import { answerRecorded, recordOf, RefusedBefore, sendExactlyOnce, type ExactlyOnce } from '../../src/app/custody/exactly-once-sender.js';
import { refuseSwap } from '../../src/app/custody/pool-swap.js';
import { DEFAULT_SETTINGS } from '../../src/app/kit/default-settings.js';
import { ServiceUnavailable, SlippageExceeded } from '../../src/domain/errors.js';
import { TESTNET } from '../../src/domain/network.js';
import { isNotSent, type CustodyTransaction } from '../../src/ports/custody-transaction-store.js';
import type { TransferStatus } from '../../src/ports/transaction-sender.js';
import type { UnitOfWork } from '../../src/ports/unit-of-work.js';
import { T0 } from '../support/fixtures.js';
import { waitFor } from '../support/wait.js';

/** A chain that knows what was broadcast, answers each hash's status from a script, and counts nonces. */
class ScriptedChain {
  readonly broadcasts: string[] = [];
  readonly statuses = new Map<string, TransferStatus>();
  nonce = 0;
  released = 0;
  release(): void {
    this.released += 1;
    this.nonce -= 1;
  }
  async broadcast(_network: string, rawTx: string): Promise<void> {
    this.broadcasts.push(rawTx);
  }
  async status(_network: string, txHash: string): Promise<TransferStatus> {
    return this.statuses.get(txHash) ?? 'pending';
  }
}

class Pending extends Error {}
class Reverted extends Error {}
/** A recorded refusal without its words (a refund's record). */
class RefusedWithoutWords extends Error {}

/** `checks`: the operation's checks before its first signature; `signing`: awaited before each signature. */
function sending(uow: UnitOfWork, chain: ScriptedChain, key = 'pay_1', over: { checks?: () => Promise<void>; signing?: Promise<void> } = {}) {
  const signed: CustodyTransaction[] = [];
  let signing = false;
  const send: ExactlyOnce<CustodyTransaction> = {
    key,
    network: TESTNET,
    tokenId: 'tok_X',
    chain,
    store: (s) => s.swaps,
    ...(over.checks ? { beforeSigning: { check: over.checks, refusedBefore: (recorded) => answerRecorded(recorded, () => new RefusedWithoutWords()) } } : {}),
    async sign() {
      signing = true;
      await over.signing;
      const n = (chain.nonce += 1);
      const tx = { paymentId: key, network: TESTNET, tokenId: 'tok_X', txHash: `0x${String(n).padStart(64, '0')}`, rawTx: `0xraw${n}`, createdAt: T0 };
      signed.push(tx);
      return tx;
    },
    reverted: () => new Reverted(),
    pending: () => new Pending(),
  };
  const deps = { uow, settings: { ...DEFAULT_SETTINGS, pullWaitMs: 0 }, clock: { now: () => T0 } };
  return { signed, signing: () => signing, run: () => sendExactlyOnce(deps, send) };
}

/** The transaction recorded for `key` (none, or a refusal, fails the test). */
async function recorded(uow: UnitOfWork, key = 'pay_1'): Promise<CustodyTransaction> {
  const r = await uow.run((s) => s.swaps.get(key));
  if (!r || isNotSent(r)) throw new Error(`no transaction recorded for ${key}: ${JSON.stringify(r)}`);
  return r;
}

const slipped = () => Promise.reject(new SlippageExceeded('The pool has moved.', '$1.00', '$0.90'));

describe('the exactly-once sender', () => {
  it('records before it broadcasts; a retry after a crash broadcasts the recorded transaction and signs nothing', async () => {
    const uow = new MemoryUnitOfWork();
    const chain = new ScriptedChain();
    await expect(sending(uow, chain).run()).rejects.toBeInstanceOf(Pending); // not mined within the wait: the request ends
    const first = await recorded(uow);
    expect(chain.broadcasts).toEqual([first.rawTx]);

    chain.statuses.set(first.txHash, 'confirmed');
    const retry = sending(uow, chain); // the reconciler, in a fresh process
    expect(await retry.run()).toEqual(first);
    expect(retry.signed).toEqual([]);
    expect(chain.broadcasts).toEqual([first.rawTx, first.rawTx]);
  });

  it('signs a dropped transaction again exactly once, whoever else retries it', async () => {
    const uow = new MemoryUnitOfWork();
    const chain = new ScriptedChain();
    await expect(sending(uow, chain).run()).rejects.toBeInstanceOf(Pending);
    const dropped = await recorded(uow);
    chain.statuses.set(dropped.txHash, 'dropped');

    // Two retries race: both see the dropped one and sign again; one replacement stands.
    const [a, b] = [sending(uow, chain), sending(uow, chain)];
    const results = await Promise.allSettled([a.run(), b.run()]);
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected']); // the replacement is pending
    const standing = await recorded(uow);
    expect(standing.txHash).not.toBe(dropped.txHash);
    expect([...a.signed, ...b.signed].map((t) => t.txHash)).toContain(standing.txHash);
    // Every signature but the standing one handed its nonce back: custody's next nonce follows it.
    expect(chain.nonce).toBe(2);
    // Only the dropped transaction (which can never be mined) and the standing one were ever sent.
    expect(new Set(chain.broadcasts)).toEqual(new Set([dropped.rawTx, standing.rawTx]));
    expect([...a.signed, ...b.signed]).toHaveLength(2);

    chain.statuses.set(standing.txHash, 'confirmed');
    expect(await sending(uow, chain).run()).toEqual(standing);
  });

  it('hands the nonce back when the record fails, and broadcasts nothing', async () => {
    const uow = new MemoryUnitOfWork();
    const chain = new ScriptedChain();
    const failing: UnitOfWork = { ...uow, run: (w) => uow.run(w), transaction: async () => Promise.reject(new Error('database gone')), close: () => uow.close() };
    await expect(sending(failing, chain).run()).rejects.toThrow('database gone');
    expect(chain.released).toBe(1);
    expect(chain.nonce).toBe(0);
    expect(chain.broadcasts).toEqual([]);
    expect(await uow.run((s) => s.swaps.get('pay_1'))).toBeNull();
  });

  it('a reverted transaction is the caller’s refusal, and stays recorded (nothing is signed again)', async () => {
    const uow = new MemoryUnitOfWork();
    const chain = new ScriptedChain();
    chain.statuses.set(`0x${'1'.padStart(64, '0')}`, 'reverted');
    await expect(sending(uow, chain).run()).rejects.toBeInstanceOf(Reverted);
    const again = sending(uow, chain);
    await expect(again.run()).rejects.toBeInstanceOf(Reverted);
    expect(again.signed).toEqual([]);
  });

  it('a transaction mined as a success without its effect is neither done nor signed again: the caller’s "pending", an error for an operator (decision 0066)', async () => {
    const uow = new MemoryUnitOfWork();
    const chain = new ScriptedChain();
    chain.statuses.set(`0x${'1'.padStart(64, '0')}`, 'no-effect');
    const errors: string[] = [];
    const first = sending(uow, chain);
    const logger = { debug() {}, info() {}, warn() {}, error: (m: string) => void errors.push(m) };
    const deps = { uow, settings: { ...DEFAULT_SETTINGS, pullWaitMs: 60_000 }, clock: { now: () => T0 }, logger };
    const send: ExactlyOnce<CustodyTransaction> = {
      key: 'pay_1',
      network: TESTNET,
      tokenId: 'tok_X',
      chain,
      store: (s) => s.swaps,
      sign: async () => ({ paymentId: 'pay_1', network: TESTNET, tokenId: 'tok_X', txHash: `0x${String((chain.nonce += 1)).padStart(64, '0')}`, rawTx: '0xraw', createdAt: T0 }),
      reverted: () => new Reverted(),
      pending: () => new Pending(),
    };
    // At once, however long the caller would wait for a pending one.
    await expect(sendExactlyOnce(deps, send)).rejects.toBeInstanceOf(Pending);
    await expect(first.run()).rejects.toBeInstanceOf(Pending);
    expect(first.signed).toEqual([]);
    expect(chain.nonce).toBe(1);
    expect((await recorded(uow)).txHash).toBe(`0x${'1'.padStart(64, '0')}`);
    expect(errors).toEqual([expect.stringContaining('mined as a success without its effect')]);
  });

  it('a refusal of the checks is recorded: a copy that passed them a moment earlier cannot record its transaction after it, hands its nonce back and answers the refusal', async () => {
    const uow = new MemoryUnitOfWork();
    const chain = new ScriptedChain();
    // The request checked the pool and passed; before it signs, the reconciler's copy checks, refuses (and refunds).
    let signNow!: () => void;
    const late = sending(uow, chain, 'pay_1', { checks: async () => undefined, signing: new Promise((r) => (signNow = r)) });
    const running = late.run();
    await waitFor('the request at its signing', late.signing, { stepMs: 0 });
    await expect(sending(uow, chain, 'pay_1', { checks: slipped }).run()).rejects.toBeInstanceOf(SlippageExceeded);
    // Recorded with what it said (decision 0063).
    const words = { code: 'SLIPPAGE_EXCEEDED', message: 'The pool has moved.', details: { expected: '$1.00', actual: '$0.90' } };
    expect(await uow.run((s) => s.swaps.get('pay_1'))).toEqual({ paymentId: 'pay_1', network: TESTNET, tokenId: 'tok_X', notSent: true, createdAt: T0, refusal: words });

    signNow();
    // The slower copy answers that refusal in its own words: the code, message and details its caller would have had.
    const answered = await running.then(
      () => null,
      (e: unknown) => e,
    );
    expect(answered).toBeInstanceOf(RefusedBefore);
    expect(answered).toMatchObject(words);
    expect(late.signed).toHaveLength(1);
    expect(chain.released).toBe(1);
    expect(chain.nonce).toBe(0);
    expect(chain.broadcasts).toEqual([]);
    // Any later copy answers the recorded refusal without checking or signing again.
    const later = sending(uow, chain, 'pay_1', { checks: async () => undefined });
    await expect(later.run()).rejects.toMatchObject(words);
    expect(later.signed).toEqual([]);
    // A refusal recorded without words (a refund's, one from before decision 0063) is answered by the operation's own.
    await uow.transaction((s) => s.swaps.refuse({ paymentId: 'pay_2', network: TESTNET, tokenId: 'tok_X', notSent: true, createdAt: T0 }));
    await expect(sending(uow, chain, 'pay_2', { checks: async () => undefined }).run()).rejects.toBeInstanceOf(RefusedWithoutWords);
  });

  it('checks that refuse after another copy recorded its transaction follow that transaction: nothing refused, nothing recorded in its place', async () => {
    const uow = new MemoryUnitOfWork();
    const chain = new ScriptedChain();
    await expect(sending(uow, chain, 'pay_1', { checks: async () => undefined }).run()).rejects.toBeInstanceOf(Pending);
    const swap = await recorded(uow);
    chain.statuses.set(swap.txHash, 'confirmed');
    // A copy that read the record before the other wrote it, and the pool after the swap moved it.
    let readBefore = true;
    const slow: UnitOfWork = {
      ...uow,
      run: async (w) => (readBefore ? ((readBefore = false), null) : uow.run(w)) as never,
      transaction: (w) => uow.transaction(w),
      close: () => uow.close(),
    };
    expect(await sending(slow, chain, 'pay_1', { checks: slipped }).run()).toEqual(swap);
    expect(await recorded(uow)).toEqual(swap);
  });

  it('an outage in the checks records nothing: a later copy checks again and sends', async () => {
    const uow = new MemoryUnitOfWork();
    const chain = new ScriptedChain();
    const outage = () => Promise.reject(new ServiceUnavailable('The pool could not be read; try again shortly.', 5));
    await expect(sending(uow, chain, 'pay_1', { checks: outage }).run()).rejects.toBeInstanceOf(ServiceUnavailable);
    expect(await uow.run((s) => s.swaps.get('pay_1'))).toBeNull();
    chain.statuses.set(`0x${'1'.padStart(64, '0')}`, 'confirmed');
    expect((await sending(uow, chain, 'pay_1', { checks: async () => undefined }).run()).txHash).toBe(`0x${'1'.padStart(64, '0')}`);
  });

  it('two copies whose checks both refuse: the refusal recorded first stands, and the other answers it in its words (decision 0063)', async () => {
    const uow = new MemoryUnitOfWork();
    const chain = new ScriptedChain();
    // The request read the pool at $0.80 and is about to record; the reconciler read $0.90 and records first.
    let refuseNow!: () => void;
    const checked = new Promise<void>((r) => (refuseNow = r));
    const request = sending(uow, chain, 'pay_1', { checks: () => checked.then(() => Promise.reject(new SlippageExceeded('The pool has moved.', '$1.00', '$0.80'))) }).run();
    await expect(sending(uow, chain, 'pay_1', { checks: slipped }).run()).rejects.toBeInstanceOf(SlippageExceeded);
    refuseNow();
    const answered = await request.then(
      () => null,
      (e: unknown) => e,
    );
    expect(answered).toBeInstanceOf(RefusedBefore);
    expect(answered).toMatchObject({ code: 'SLIPPAGE_EXCEEDED', details: { actual: '$0.90' } });
    expect(await uow.run((s) => s.swaps.get('pay_1'))).toMatchObject({ refusal: { details: { actual: '$0.90' } } });
    expect(chain.broadcasts).toEqual([]);
  });

  it('a pool venue’s refusal recorded in the swap’s place: the first stands, a later one answers it (refuseSwap)', async () => {
    const deps = { uow: new MemoryUnitOfWork(), clock: { now: () => T0 } };
    const first = new SlippageExceeded('The buy limit is no longer met.', '100 tokens', '90 tokens');
    expect(await refuseSwap(deps, 'pay_1', TESTNET, 'tok_X', first)).toBe(first);
    const later = await refuseSwap(deps, 'pay_1', TESTNET, 'tok_X', new ServiceUnavailable('The pool could not be read; try again shortly.', 5));
    expect(later).toBeInstanceOf(RefusedBefore);
    expect(later).toMatchObject({ code: 'SLIPPAGE_EXCEEDED', message: first.message, details: first.details });
  });

  it('what a refusal said is recorded as JSON holds it: an outage’s Retry-After kept, integers as text, details JSON cannot hold left out', () => {
    expect(recordOf(new ServiceUnavailable('The pool has no liquidity.', 60))).toEqual({ code: 'SERVICE_UNAVAILABLE', message: 'The pool has no liquidity.', retryAfterSeconds: 60 });
    const again = answerRecorded({ paymentId: 'pay_1', network: TESTNET, tokenId: 'tok_X', notSent: true, createdAt: T0, refusal: recordOf(new ServiceUnavailable('The pool has no liquidity.', 60)) }, () => new Error('none'));
    expect(again).toMatchObject({ code: 'SERVICE_UNAVAILABLE', retryAfterSeconds: 60 });
    expect(recordOf(new SlippageExceeded('moved', '1', '0', { amount: 10n ** 30n }))).toEqual({ code: 'SLIPPAGE_EXCEEDED', message: 'moved', details: { expected: '1', actual: '0', amount: '1000000000000000000000000000000' } });
    const cyclic: Record<string, unknown> = {};
    cyclic['self'] = cyclic;
    expect(recordOf(new SlippageExceeded('moved', '1', '0', cyclic))).toEqual({ code: 'SLIPPAGE_EXCEEDED', message: 'moved' });
  });
});
