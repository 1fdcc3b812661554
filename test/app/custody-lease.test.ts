/**
 * Which process signs for custody (docs/decisions/0031): the one that takes custody's lock; the
 * other stands by, saying so with the holder's name; a holder that loses its lock stops signing at
 * once and says so, and when it takes the lock back its nonce queue must ask the chain again.
 */
import { expect, it } from 'vitest';
import { MemorySignerLocks, MemorySignerLockTable } from '../../src/adapters/persistence/memory/memory-signer-locks.js';
import { CustodyLease } from '../../src/app/kit/custody-lease.js';

const CUSTODY = '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266';

function lease(locks: MemorySignerLocks) {
  const logs: { level: string; message: string; fields?: Record<string, unknown> }[] = [];
  const log = (level: string) => (message: string, fields?: Record<string, unknown>) => void logs.push({ level, message, ...(fields ? { fields } : {}) });
  let gained = 0;
  const l = new CustodyLease({ locks, custody: CUSTODY, logger: { debug: log('debug'), info: log('info'), warn: log('warn'), error: log('error') }, onGained: () => (gained += 1) });
  return { lease: l, logs, gained: () => gained };
}

it('one holder signs; the other stands by naming it, takes over when it is gone, and a holder that lost the lock resets its nonces on taking it back', async () => {
  const table = new MemorySignerLockTable();
  const [lockA, lockB] = [new MemorySignerLocks(table, 'pid 1 on a'), new MemorySignerLocks(table, 'pid 2 on b')];
  const a = lease(lockA);
  const b = lease(lockB);
  expect(a.lease.signing()).toBe(false);
  expect(await a.lease.claim()).toBe(true);
  expect(a.lease.signing()).toBe(true);
  expect(a.gained()).toBe(0); // a fresh queue has nothing to forget

  expect(await b.lease.claim()).toBe(false);
  expect(await b.lease.claim()).toBe(false);
  expect(b.logs.filter((l) => l.message.includes('stand by'))).toEqual([expect.objectContaining({ level: 'info', fields: { custody: CUSTODY, holder: 'pid 1 on a' } })]); // once a minute

  lockA.drop(); // A's session ends
  expect(a.lease.signing()).toBe(false);
  expect(a.logs.filter((l) => l.level === 'error')).toHaveLength(1);
  expect(await b.lease.claim()).toBe(true);
  expect(await a.lease.claim()).toBe(false);

  lockB.drop();
  expect(await a.lease.claim()).toBe(true);
  expect(a.gained()).toBe(1); // B signed meanwhile: A's queue asks the chain again
});
