/**
 * One signer for custody across processes (docs/decisions/0031), over fakes: three services on
 * one store and one chain. A holds custody's signer lock (its workers run); B and C do not: a sell
 * through B asks A for its pull and follows what A records — asking again when it sees it dropped —
 * and B signs nothing. When A dies its
 * lock goes with it; C's next pass takes custody over and answers what is asked from then on.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { FakeFacilitator } from '../../src/adapters/facilitator/fake/fake-facilitator.js';
import { MemoryUnitOfWork } from '../../src/adapters/persistence/memory/memory-unit-of-work.js';
import { MemorySignerLocks, MemorySignerLockTable } from '../../src/adapters/persistence/memory/memory-signer-locks.js';
import { FakePayoutSender } from '../../src/adapters/payout/fake/fake-payout-sender.js';
import { FakeTokenIssuer } from '../../src/adapters/token/fake/fake-token-issuer.js';
import type { RunningService } from '../../src/bootstrap/compose.js';
import type { TokenIssuer } from '../../src/ports/token-issuer.js';
import { signedSellBody } from '../support/onchain.js';
import { json, ShiftableClock, startTestService } from '../support/service.js';
import { waitFor } from '../support/wait.js';
import { devAccount, payingFetch } from '../support/x402-client.js';

const wallet = devAccount(5);
const clock = new ShiftableClock();
const uow = new MemoryUnitOfWork();
const issuer = new FakeTokenIssuer({ clock });
const facilitator = new FakeFacilitator({ clock, defaultBalance: 10_000_000_000n });
const payouts = new FakePayoutSender();
const table = new MemorySignerLockTable();
const locks = { a: new MemorySignerLocks(table, 'process A'), b: new MemorySignerLocks(table, 'process B'), c: new MemorySignerLocks(table, 'process C') };
/** What each process signed with custody's key, and what A warned of. */
const signedBy = { a: 0, b: 0, c: 0 };
const warnedByA: string[] = [];
const quiet = { debug() {}, info() {}, warn() {}, error() {} };
const loggers = { a: { ...quiet, warn: (m: string) => void warnedByA.push(m) }, b: quiet, c: quiet };

/** The shared fake chain, counting what this process signs. */
function counting(which: keyof typeof signedBy) {
  return (inner: TokenIssuer): TokenIssuer =>
    new Proxy(inner, {
      get(target, prop, receiver) {
        const value = Reflect.get(target, prop, receiver) as unknown;
        if (typeof value !== 'function') return value;
        return (...args: unknown[]) => {
          if (String(prop).startsWith('prepare')) signedBy[which] += 1;
          return (value as (...a: unknown[]) => unknown).apply(target, args);
        };
      },
    });
}

const services = {} as Record<'a' | 'b' | 'c', RunningService>;
beforeAll(async () => {
  for (const which of ['a', 'b', 'c'] as const) {
    services[which] = await startTestService({
      ports: { clock, uow, facilitator, payoutSender: payouts, tokenIssuer: issuer, signerLocks: locks[which], logger: loggers[which] },
      wrapTokenIssuer: counting(which),
    });
  }
});
afterAll(async () => {
  for (const s of Object.values(services)) await s.stop();
});

const call = (service: RunningService, path: string, body: unknown) =>
  payingFetch(wallet)(`${service.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-wallet-address': wallet.address },
    body: JSON.stringify(body),
  });

/** `which`'s workers pass every 20 ms (the clock moving past each wait) until `until` settles. */
async function workersOf<T>(which: 'a' | 'b' | 'c', until: Promise<T>): Promise<T> {
  let done = false;
  const loop = (async () => {
    while (!done) {
      clock.offsetMs += 2_000;
      await services[which].runWorkers();
      await new Promise((r) => setTimeout(r, 20));
    }
  })();
  try {
    return await until;
  } finally {
    done = true;
    await loop;
  }
}

it("a sell through a process that does not sign for custody is pulled by the one that does; a dropped one is signed again there; that one's death hands custody to the next", async () => {
  await services.a.runWorkers(); // A's first pass takes custody's lock
  expect(locks.a.holds(issuer.custody('eip155:84532'))).toBe(true);
  await services.b.runWorkers(); // B's workers stand by: nothing runs there
  expect(locks.b.holds(issuer.custody('eip155:84532'))).toBe(false);

  const { tokenId } = (await json(await call(services.b, '/tokens', { name: 'Intent', symbol: 'INT' }))).data;
  const buy = await call(services.b, '/entrypoints/token_buy_usd', { tokenId, usdAmount: '5' });
  expect(buy.status).toBe(200);
  const deliveryId = (await json(buy)).data.delivery.deliveryId;
  await workersOf('a', waitFor('the buy delivered', async () => (await uow.run((s) => s.deliveries.get(deliveryId)))?.state === 'CONFIRMED'));

  // B asks, A's workers answer (here between passes), B follows the pull A recorded and books the sell.
  const sell = await workersOf('a', call(services.b, '/entrypoints/token_sell', await signedSellBody(services.b.url, wallet, tokenId, '1000')));
  expect(sell.status).toBe(200);
  expect((await json(sell)).data.tokensSold).toBe('1000');
  expect(signedBy.b).toBe(0);
  expect(await uow.run((s) => s.intents.open(10))).toEqual([]);

  // The pull A signs for B's next sell is dropped (another transaction took its nonce): B sees it,
  // asks again, A signs it again — logged — and the sell goes through, B still signing nothing.
  issuer.scriptNext('drop');
  const resigned = await workersOf('a', call(services.b, '/entrypoints/token_sell', await signedSellBody(services.b.url, wallet, tokenId, '1000')));
  expect(resigned.status).toBe(200);
  expect(signedBy.b).toBe(0);
  expect(warnedByA).toContain('a custody transaction was dropped (its nonce taken by another); signed again');

  // A dies: its lock goes with it. C's next pass takes custody over and answers B's next ask.
  locks.a.drop();
  const before = signedBy.a;
  const again = await workersOf('c', call(services.b, '/entrypoints/token_sell', await signedSellBody(services.b.url, wallet, tokenId, '1000')));
  expect(again.status).toBe(200);
  expect(locks.c.holds(issuer.custody('eip155:84532'))).toBe(true);
  expect(signedBy.a).toBe(before);
  expect(signedBy.b).toBe(0);
  expect(signedBy.c).toBeGreaterThan(0);
  // The old holder's workers now stand by too.
  await services.a.runWorkers();
  expect(locks.a.holds(issuer.custody('eip155:84532'))).toBe(false);
}, 60_000);
