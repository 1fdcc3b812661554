/**
 * The SignerLocks contract (docs/decisions/0031), for two processes on one store: a key's lock is
 * held by one live process at a time, taken again at once when its holder dies or stops, and
 * named to whoever is refused; on a store that notifies, an intent asked wakes the listeners.
 */
import { describe, expect, it } from 'vitest';
import type { SignerLocks } from '../../src/ports/signer-locks.js';
import { pollUntil, waitFor } from '../support/wait.js';

export interface TwoProcesses {
  a: SignerLocks;
  b: SignerLocks;
  /** `a`'s process is gone as after a kill -9 (its session ended by force). */
  crashA(): Promise<void>;
  /** Asks an intent through the store, as another process would; null where the store never notifies. */
  askIntent: (() => Promise<void>) | null;
  cleanup(): Promise<void>;
}

const KEY = '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266';
const OTHER = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';

export function signerLocksContract(name: string, make: () => Promise<TwoProcesses>) {
  describe(`SignerLocks contract: ${name}`, () => {
    const withTwo = async (fn: (p: TwoProcesses) => Promise<void>) => {
      const p = await make();
      try {
        await fn(p);
      } finally {
        await p.a.close();
        await p.b.close();
        await p.cleanup();
      }
    };

    it('one live holder per key: the other is refused and told who holds it', () =>
      withTwo(async ({ a, b }) => {
        expect(await a.tryAcquire(KEY)).toBe(true);
        expect(await a.tryAcquire(KEY.toLowerCase())).toBe(true); // held already, whatever the case
        expect(await b.tryAcquire(KEY)).toBe(false);
        expect(a.holds(KEY)).toBe(true);
        expect(b.holds(KEY)).toBe(false);
        expect(await b.holder(KEY)).toContain('process a'); // both factories name the first process so
        expect(await b.holder(OTHER)).toBeNull();
        // Keys are independent.
        expect(await b.tryAcquire(OTHER)).toBe(true);
        expect(await a.tryAcquire(OTHER)).toBe(false);
      }));

    it('a holder that stops lets the other take the key at once', () =>
      withTwo(async ({ a, b }) => {
        expect(await a.tryAcquire(KEY)).toBe(true);
        await a.close();
        expect(await b.tryAcquire(KEY)).toBe(true);
      }));

    it('a holder that dies loses the key (and knows it), and the other takes it', () =>
      withTwo(async ({ a, b, crashA }) => {
        expect(await a.tryAcquire(KEY)).toBe(true);
        await crashA();
        expect(await pollUntil(() => !a.holds(KEY))).toBe(true);
        expect(await pollUntil(() => b.tryAcquire(KEY))).toBe(true);
        expect(await a.tryAcquire(KEY)).toBe(false);
      }));

    it('an intent asked through the store wakes the listeners (where the store notifies)', () =>
      withTwo(async ({ a, askIntent }) => {
        if (!askIntent) return;
        let woken = 0;
        const stop = a.onIntent(() => (woken += 1));
        await waitFor('the lock store connected and listening', () => a.tryAcquire(KEY));
        const before = woken;
        await askIntent();
        expect(await pollUntil(() => woken > before)).toBe(true);
        stop();
      }));
  });
}
