/**
 * The anti-snipe launch fee on the embedded devnet, paid with the official @x402/fetch client: a
 * buy in a token's first seconds pays the decayed fee in force when it is applied, to the unit,
 * and its tokens reach the buyer on chain.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { erc20Abi, type Hex } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryUnitOfWork } from '../../src/adapters/persistence/memory/memory-unit-of-work.js';
import { startService, type RunningService } from '../../src/bootstrap/compose.js';
import { DEFAULT_CURVE_PARAMS, initialCurveState, quoteBuyWithUsd } from '../../src/domain/curve.js';
import { feeBpsAt } from '../../src/domain/fees.js';
import { formatTokens, formatUsd, parseUsd } from '../../src/domain/money.js';
import { TESTNET } from '../../src/domain/network.js';
import { devnetConfig, drainWorkers as drain, json, ShiftableClock } from '../support/service.js';
import { devAccount, payingFetch } from '../support/x402-client.js';

const dataDir = mkdtempSync(join(tmpdir(), 'launchpad-launch-fee-'));
const clock = new ShiftableClock();
const uow = new MemoryUnitOfWork();
let service: RunningService;
const [creator, sniper] = [devAccount(5), devAccount(6)];

beforeAll(async () => {
  const config = await devnetConfig(dataDir, { DEVNET_IDLE_BLOCK_SECONDS: '0', LAUNCH_FEE_START_BPS: '5000', LAUNCH_FEE_DECAY_SECONDS: '20' });
  service = await startService(config, { ports: { clock, uow } });
}, 60_000);

afterAll(async () => {
  await service.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

const call = (account: typeof creator, path: string, body: unknown) =>
  payingFetch(account)(`${service.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-wallet-address': account.address },
    body: JSON.stringify(body),
  });

describe('the launch fee on the devnet', () => {
  it('a buy in the first seconds pays the fee in force when it is applied, to the unit, and gets the tokens that fee leaves', async () => {
    const token = (await json(await call(creator, '/tokens', { name: 'Snipe Me', symbol: 'SNIPE' }))).data;
    expect(token.launchFee.startBps).toBe(5000);
    const bought = (await json(await call(sniper, '/entrypoints/token_buy_usd', { tokenId: token.tokenId, usdAmount: '10' }))).data;
    const trade = uow.db.trades.find((t) => t.tokenId === token.tokenId)!;
    const elapsed = BigInt(trade.createdAt.getTime() - new Date(token.createdAt).getTime());
    const bps = feeBpsAt({ startBps: 5_000n, baseBps: 100n, decayMs: 20_000n }, elapsed);
    expect(bps).toBeGreaterThan(100n); // still in the launch window
    const expected = quoteBuyWithUsd({ ...DEFAULT_CURVE_PARAMS, feeBps: bps }, initialCurveState(DEFAULT_CURVE_PARAMS), parseUsd('10'));
    expect({ fee: bought.feeUsd, tokens: bought.tokensReceived }).toEqual({ fee: formatUsd(expected.feeUsd), tokens: formatTokens(expected.tokensOut) });
    await drain(service, clock, 6);
    const onChain = await service.devnet!.publicClient(TESTNET).readContract({ address: token.address as Hex, abi: erc20Abi, functionName: 'balanceOf', args: [sniper.address] });
    expect(onChain).toBe(expected.tokensOut);
  }, 120_000);
});
