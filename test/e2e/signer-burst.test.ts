/**
 * One key settles payments, sends payouts, delivers and pulls tokens (the devnet default): a burst
 * of paid buys and sells while the workers run must fail no payment and drop no payout — every signer of
 * the key takes its nonces from one queue (docs/).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { MemoryUnitOfWork } from '../../src/adapters/persistence/memory/memory-unit-of-work.js';
import { startService, type RunningService } from '../../src/bootstrap/compose.js';
import { TESTNET } from '../../src/domain/network.js';
import { signedSellBody } from '../support/onchain.js';
import { devnetConfig, json } from '../support/service.js';
import { pollUntil } from '../support/wait.js';
import { devAccount, payingFetch } from '../support/x402-client.js';

const dataDir = mkdtempSync(join(tmpdir(), 'launchpad-burst-'));
const uow = new MemoryUnitOfWork();
let service: RunningService;

beforeAll(async () => {
  const config = await devnetConfig(dataDir, {
    WORKERS: 'true',
  });
  service = await startService(config, { ports: { uow }, timing: { workerIntervalMs: 20 } });
}, 60_000);
afterAll(async () => {
  await service.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

it('a burst of settlements beside running payouts: no payment fails, no payout is dropped', async () => {
  const wallets = [5, 6, 7, 8, 9].map(devAccount);
  const call = (w: (typeof wallets)[number], path: string, body: unknown) =>
    payingFetch(w)(`${service.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-wallet-address': w.address },
      body: JSON.stringify(body),
    });
  const tokens = await Promise.all(wallets.map(async (w, i) => (await json(await call(w, '/tokens', { name: `Burst ${i}`, symbol: `BU${i}` }))).data.tokenId));
  const read = async (path: string) => (await json(await fetch(`${service.url}${path}`))).data;
  // Waited for, not asserted: a step that did not finish shows in the answer of the call after it.
  const until = (check: () => Promise<boolean>) => pollUntil(check, { stepMs: 25 });
  await Promise.all(tokens.map((id) => until(async () => (await read(`/tokens/${id}`)).deployment.state === 'DEPLOYED')));
  const statuses: number[] = [];
  /** What a call that was not a 200 answered (its reason says which step did not finish). */
  const unfinished: string[] = [];
  const answered = async (what: string, res: Response) => {
    statuses.push(res.status);
    const body = await json(res);
    if (res.status !== 200) unfinished.push(`${what}: ${res.status} ${JSON.stringify(body)}`);
    return body;
  };
  await Promise.all(
    wallets.map(async (w, i) => {
      for (let round = 0; round < 6; round++) {
        const buy = await answered('buy', await call(w, '/entrypoints/token_buy_usd', { tokenId: tokens[i], usdAmount: '0.5' }));
        if (!buy.data?.delivery) continue;
        // Settlements, deliveries, pulls and payouts: every transaction on the one key.
        const { deliveryId } = buy.data.delivery;
        await until(async () => (await read(`/api/deliveries/${deliveryId}`)).state === 'CONFIRMED');
        await answered('sell', await call(w, '/entrypoints/token_sell', await signedSellBody(service.url, w, tokens[i], '100')));
      }
    }),
  );
  expect(statuses.filter((s) => s !== 200), unfinished.join('\n')).toEqual([]);
  await pollUntil(() => [...uow.db.payouts.values()].every((p) => p.state === 'CONFIRMED'), { stepMs: 50 });
  const payouts = [...uow.db.payouts.values()].filter((p) => p.network === TESTNET);
  expect(payouts).toHaveLength(wallets.length * 6);
  expect(payouts.filter((p) => p.state !== 'CONFIRMED' || p.attempts !== 1 || p.lastError !== null)).toEqual([]);
  expect([...uow.db.payments.values()].filter((p) => p.state !== 'APPLIED')).toEqual([]);
  expect([...uow.db.deliveries.values()].filter((d) => d.state !== 'CONFIRMED' || d.attempts !== 1)).toEqual([]);
}, 120_000);
