/**
 * Shared configuration is checked (docs/decisions/0032), over fakes: a second process on the same
 * store with another LaunchFactory (or pay-to) is refused at start with one line naming the
 * setting; an operator who changes it for everyone says so with ACCEPT_SETTINGS_CHANGE, and then a
 * token announced under the old factory — which can never be deployed at its address — goes
 * FAILED with an error in the log, its deliveries FAILED and every payment for it paid back, once.
 */
import { afterAll, expect, it } from 'vitest';
import { FakeFacilitator } from '../../src/adapters/facilitator/fake/fake-facilitator.js';
import { MemoryUnitOfWork } from '../../src/adapters/persistence/memory/memory-unit-of-work.js';
import { FakePayoutSender } from '../../src/adapters/payout/fake/fake-payout-sender.js';
import { FakeTokenIssuer } from '../../src/adapters/token/fake/fake-token-issuer.js';
import type { RunningService } from '../../src/bootstrap/compose.js';
import { StartupError } from '../../src/bootstrap/startup-error.js';
import type { Logger } from '../../src/ports/logger.js';
import { json, ShiftableClock, startTestService } from '../support/service.js';
import { devAccount, payingFetch } from '../support/x402-client.js';

const wallet = devAccount(5);
const clock = new ShiftableClock();
const uow = new MemoryUnitOfWork();
const facilitator = new FakeFacilitator({ clock, defaultBalance: 10_000_000_000n });
const OLD_FACTORY = '0x4C61756E6368466163746f727900000000000000';
const NEW_FACTORY = '0x00000000000000000000000000000000000Fac02';
const running: RunningService[] = [];
afterAll(async () => {
  for (const s of running) await s.stop();
});

const errors: { message: string; fields: Record<string, unknown> | undefined }[] = [];
const logger: Logger = { debug() {}, info() {}, warn() {}, error: (message, fields) => void errors.push({ message, fields }), enabled: (level) => level === 'error' };

const start = async (factory: string, env: Record<string, string> = {}) => {
  const service = await startTestService(
    { ports: { clock, uow, facilitator, logger, payoutSender: new FakePayoutSender(), tokenIssuer: new FakeTokenIssuer({ clock, factory }) } },
    env,
  );
  running.push(service);
  return service;
};

const call = (service: RunningService, path: string, body: unknown) =>
  payingFetch(wallet)(`${service.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-wallet-address': wallet.address },
    body: JSON.stringify(body),
  });

it('a process that disagrees is refused with one line; a token its change strands is FAILED and paid back, once', async () => {
  const a = await start(OLD_FACTORY);
  const created = await call(a, '/tokens', { name: 'Stranded', symbol: 'STR' });
  expect(created.status).toBe(201);
  const { tokenId } = (await json(created)).data;
  const bought = await call(a, '/entrypoints/token_buy_usd', { tokenId, usdAmount: '1' });
  expect(bought.status).toBe(200);
  const buy = (await json(bought)).data;
  await a.stop();
  running.splice(running.indexOf(a), 1);

  // Another factory, another pay-to: refused before it listens, naming both.
  const refused = await start(NEW_FACTORY, { PAY_TO_84532: '0x000000000000000000000000000000000000dEaD' }).then(
    () => null,
    (e: unknown) => e,
  );
  expect(refused).toBeInstanceOf(StartupError);
  const line = (refused as Error).message;
  expect(line.split('\n')).toHaveLength(1);
  expect(line).toContain(`LAUNCH_FACTORY_84532 is ${NEW_FACTORY.toLowerCase()} here but ${OLD_FACTORY.toLowerCase()} for the processes before`);
  expect(line).toContain('PAY_TO_84532 is 0x000000000000000000000000000000000000dead here');
  expect(line).toContain('ACCEPT_SETTINGS_CHANGE=LAUNCH_FACTORY_8453,LAUNCH_FACTORY_84532,PAY_TO_84532');

  // The operator changes the factory for everyone: the token announced under the old one is stranded.
  const b = await start(NEW_FACTORY, { ACCEPT_SETTINGS_CHANGE: 'LAUNCH_FACTORY_8453,LAUNCH_FACTORY_84532' });
  await b.runWorkers();
  await b.runWorkers(); // a second pass adds nothing
  const token = await uow.run((s) => s.tokens.get(tokenId));
  expect(token?.deployment.state).toBe('FAILED');
  expect(errors).toEqual([expect.objectContaining({ message: 'deployment can never be sent; FAILED', fields: expect.objectContaining({ reason: expect.stringContaining(token!.address!) }) })]);
  expect((await uow.run((s) => s.deliveries.get(buy.delivery.deliveryId)))?.state).toBe('FAILED');
  const refunds = [...uow.db.payouts.values()].filter((p) => p.reason === 'refund');
  const payments = [...uow.db.payments.values()].filter((p) => p.state === 'APPLIED');
  expect(payments).toHaveLength(2); // the creation and the buy
  expect(refunds.map((p) => ({ wallet: p.wallet, asset: p.asset, amount: p.amount, sourceId: p.sourceId })).sort((x, y) => x.sourceId.localeCompare(y.sourceId))).toEqual(
    payments
      .map((p) => ({ wallet: p.payer, asset: p.asset, amount: p.amount, sourceId: `undeliverable:${p.paymentId}` }))
      .sort((x, y) => x.sourceId.localeCompare(y.sourceId)),
  );
  // It trades nowhere now: refused before any payment is asked for.
  const again = await fetch(`${b.url}/entrypoints/token_buy_usd`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-wallet-address': wallet.address },
    body: JSON.stringify({ tokenId, usdAmount: '1' }),
  });
  expect(again.status).toBe(409);
  expect((await json(again)).error.code).toBe('TOKEN_NOT_DEPLOYED');
}, 60_000);
