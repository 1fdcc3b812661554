/**
 * EURC on the embedded devnet (SPEC §15), paid with the official @x402/fetch client and a selector
 * preferring EURC: the 402 prices EURC through the Chainlink adapter over the devnet's mock
 * EUR/USD feed (and the fixed source beside it), the EURC contract at its canonical address moves
 * exactly the offered amount, and a sell paid in EURC is paid out in EURC on chain.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryUnitOfWork } from '../../src/adapters/persistence/memory/memory-unit-of-work.js';
import { startService, type RunningService } from '../../src/bootstrap/compose.js';
import { loadConfig } from '../../src/app/config.js';
import { parseUsd } from '../../src/domain/money.js';
import { NETWORKS, TESTNET } from '../../src/domain/network.js';
import { freePorts } from '../support/free-ports.js';
import { signedSellBody } from '../support/onchain.js';
import { json, ShiftableClock } from '../support/service.js';
import { decodeBase64Json, devAccount, payingFetch, preferEurc } from '../support/x402-client.js';

const TREASURY = '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266';
const dataDir = mkdtempSync(join(tmpdir(), 'launchpad-eurc-'));
const clock = new ShiftableClock();
const uow = new MemoryUnitOfWork();
const wallet = devAccount(8); // a testnet wallet
let service: RunningService;

beforeAll(async () => {
  const config = loadConfig({
    PORT: '0',
    LOG_LEVEL: 'silent',
    RATE_LIMIT_FREE_PER_MINUTE: '0',
    WORKERS: 'false',
    DATA_DIR: dataDir,
    DEVNET_PORT: String(await freePorts()),
  });
  service = await startService(config, { clock, uow });
}, 60_000);

afterAll(async () => {
  await service.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

const eurc = (address: string) => service.devnet!.assetBalance(TESTNET, 'EURC', address as `0x${string}`);
const usdc = (address: string) => service.devnet!.assetBalance(TESTNET, 'USDC', address as `0x${string}`);
const pay = payingFetch(wallet, fetch, preferEurc);
const call = (path: string, body: unknown, f: typeof fetch = pay) =>
  f(`${service.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-wallet-address': wallet.address },
    body: JSON.stringify(body),
  });

async function drainWorkers(passes = 4) {
  for (let i = 0; i < passes; i++) {
    clock.offsetMs += 2_000;
    await service.runWorkers();
  }
}

describe('EURC on the devnet', () => {
  it('the demo wallets hold 10,000 EURC at the canonical address, whose EIP-712 domain is EURC / 2', async () => {
    expect(await eurc(wallet.address)).toBe(10_000_000_000n);
    const client = service.devnet!.publicClient(TESTNET);
    const abi = [
      { type: 'function', name: 'name', stateMutability: 'view', inputs: [], outputs: [{ type: 'string' }] },
      { type: 'function', name: 'version', stateMutability: 'view', inputs: [], outputs: [{ type: 'string' }] },
    ] as const;
    const address = NETWORKS[TESTNET].assets.EURC.address;
    expect(await client.readContract({ address, abi, functionName: 'name' })).toBe('EURC');
    expect(await client.readContract({ address, abi, functionName: 'version' })).toBe('2');
  });

  it('a wallet pays in EURC at the held quote rounded up; the USD value is booked; its sell is paid out in EURC', async () => {
    // The 402 prices EURC from the devnet's mock EUR/USD feed (1.08) and the fixed source.
    const challenge = await call('/entrypoints/token_create', { name: 'Euro Cat', symbol: 'ECAT' }, fetch);
    const required = decodeBase64Json<any>(challenge.headers.get('payment-required'));
    expect(required.accepts.map((a: any) => [a.asset, a.amount])).toEqual([
      [NETWORKS[TESTNET].usdc, '10000'],
      [NETWORKS[TESTNET].assets.EURC.address, '9260'],
    ]);

    const eurcBefore = await eurc(wallet.address);
    const usdcBefore = await usdc(wallet.address);
    const treasuryBefore = await eurc(TREASURY);
    const created = await json(await call('/entrypoints/token_create', { name: 'Euro Cat', symbol: 'ECAT' }));
    const tokenId = created.data.tokenId;
    const buy = (await json(await call('/entrypoints/token_buy_usd', { tokenId, usdAmount: '5' }))).data;
    expect(buy.usdSpent).toBe('5');
    const paidEurc = 9_260n + 4_629_630n; // ceil(0.01 / 1.08) + ceil(5 / 1.08), in units
    expect(await eurc(wallet.address)).toBe(eurcBefore - paidEurc);
    expect(await usdc(wallet.address)).toBe(usdcBefore);
    expect(await eurc(TREASURY)).toBe(treasuryBefore + paidEurc);
    expect(uow.db.payments.get(buy.payment.paymentId)).toMatchObject({ asset: 'EURC', amount: 4_629_630n, usdValue: 5_000_000n, state: 'APPLIED' });

    await drainWorkers(); // deployed and delivered: the tokens are in the wallet
    const sold = (await json(await call('/entrypoints/token_sell', await signedSellBody(service.url, wallet, tokenId, '100000')))).data;
    const usdOut = parseUsd(sold.usdReceived);
    const proceeds = (usdOut * 100n) / 108n; // floor: payouts round down
    expect(sold.payout).toMatchObject({ asset: 'EURC', reason: 'sell' });
    expect(uow.db.payouts.get(sold.payout.payoutId)!.amount).toBe(proceeds);
    const beforePayout = await eurc(wallet.address);
    await drainWorkers();
    expect(uow.db.payouts.get(sold.payout.payoutId)!.state).toBe('CONFIRMED');
    expect(await eurc(wallet.address)).toBe(beforePayout + proceeds);
    expect(await usdc(wallet.address)).toBe(usdcBefore);
  });
});
