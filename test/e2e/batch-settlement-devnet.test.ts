/**
 * Pay once, call many on the devnet (docs/payments.md), on SQLite and on PostgreSQL: the official
 * @x402/fetch client with @x402/evm's batch-settlement scheme pays 20 paid calls with at most two
 * USDC movements of its own (the deposits, gasless: the facilitator submits them); the workers'
 * claim and settle, then the official client's cooperative refund, leave the payer short of
 * exactly the prices charged and the treasury richer by exactly them; the channel's books equal
 * the contract's.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BatchSettlementEvmScheme, computeChannelId } from '@x402/evm/batch-settlement/client';
import { wrapFetchWithPaymentFromConfig } from '@x402/fetch';
import { parseAbiItem, type Hex } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONTRACTS } from '../../src/adapters/kit/evm/contracts/artifacts.js';
import { BATCH_SETTLEMENT_CONTRACT } from '../../src/adapters/kit/x402/batch-settlement.js';
import { startService, type RunningService } from '../../src/bootstrap/compose.js';
import { NETWORKS, TESTNET } from '../../src/domain/network.js';
import { testDatabases } from '../support/databases.js';
import { devnetTools } from '../support/devnet.js';
import { devnetConfig, drainWorkers, json, ShiftableClock } from '../support/service.js';
import { decodeBase64Json, devAccount, payingFetch } from '../support/x402-client.js';

const TREASURY = '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266';
const USDC = NETWORKS[TESTNET].assets.USDC.address as Hex;
const TRANSFER = parseAbiItem('event Transfer(address indexed from, address indexed to, uint256 value)');

describe.each(testDatabases('batch'))('batch-settlement on the devnet, on %s', (_name, openStore) => {
  const clock = new ShiftableClock();
  const dataDir = mkdtempSync(join(tmpdir(), 'launchpad-batch-'));
  const payer = devAccount(6);
  const creator = devAccount(8);
  let service: RunningService;
  let cleanup: () => Promise<void>;
  let tokenId: string;

  beforeAll(async () => {
    const store = await openStore();
    cleanup = store.cleanup;
    service = await startService(await devnetConfig(dataDir), { ports: { clock, uow: store.uow } });
    const res = await post('/tokens', { name: 'Channel', symbol: 'CHAN' }, payingFetch(creator), { 'x-wallet-address': creator.address });
    expect(res.status).toBe(201);
    tokenId = (await json(res)).data.tokenId;
  }, 60_000);

  afterAll(async () => {
    await service?.stop();
    await cleanup?.();
    rmSync(dataDir, { recursive: true, force: true });
  });

  function post(path: string, body: unknown, f: typeof fetch = fetch, headers: Record<string, string> = {}) {
    return f(`${service.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
  }
  const chain = () => devnetTools(service.devnet!).publicClient(TESTNET);
  const usdc = (address: string) => devnetTools(service.devnet!).assetBalance(TESTNET, 'USDC', address as Hex);
  /** The payer's own USDC movements since `fromBlock`: Transfers out of its wallet. */
  const movements = async (fromBlock: bigint) => (await chain().getLogs({ address: USDC, event: TRANSFER, args: { from: payer.address }, fromBlock })).length;

  it('20 paid calls, at most two USDC movements; claims and a cooperative refund leave the payer short of exactly the prices', async () => {
    const fromBlock = await chain().getBlockNumber();
    const payerBefore = await usdc(payer.address);
    const treasuryBefore = await usdc(TREASURY);
    // Fifteen calls' worth a deposit: 20 calls take two and leave five calls' worth to refund.
    const scheme = new BatchSettlementEvmScheme(payer, { depositStrategy: (c) => BigInt(c.requestAmount) * 15n });
    const paying = wrapFetchWithPaymentFromConfig(fetch, { schemes: [{ network: 'eip155:*', client: scheme }], spendControls: false });
    let charged = 0n;
    for (let i = 0; i < 20; i++) {
      const res = await post('/entrypoints/token_info', { tokenId }, paying, { 'x-wallet-address': payer.address });
      expect(res.status, await res.clone().text()).toBe(200);
      charged += BigInt(decodeBase64Json<any>(res.headers.get('payment-response')).extra.chargedAmount);
    }
    expect(charged).toBe(20_000n); // $0.001 each
    expect(await movements(fromBlock)).toBeLessThanOrEqual(2);
    // The payer paid no gas: the facilitator submitted its deposits.
    expect(await chain().getTransactionCount({ address: payer.address })).toBe(0);

    // A minute of quiet: the workers claim what was charged and settle it to the treasury.
    await drainWorkers(service, clock, 1, 61_000);
    expect((await usdc(TREASURY)) - treasuryBefore).toBe(charged);
    const probe = await post('/entrypoints/token_info', { tokenId }, fetch, { 'x-wallet-address': payer.address });
    const accepted = decodeBase64Json<any>(probe.headers.get('payment-required')).accepts.find(
      (a: any) => a.scheme === 'batch-settlement' && a.network === TESTNET && a.asset.toLowerCase() === USDC.toLowerCase(),
    );
    const channelId = computeChannelId(scheme.buildChannelConfig(accepted), TESTNET).toLowerCase();
    const [balance, totalClaimed] = (await chain().readContract({
      address: BATCH_SETTLEMENT_CONTRACT,
      abi: CONTRACTS.X402BatchSettlement.abi,
      functionName: 'channels',
      args: [channelId as Hex],
    })) as readonly [bigint, bigint];
    const books = await service.application.deps.uow.run((s) => s.channels.get(channelId));
    expect(books).toMatchObject({ balance, claimed: totalClaimed, charged });
    expect(totalClaimed).toBe(charged);

    // The rest of the deposit back.
    const refund = await scheme.refund(`${service.url}/entrypoints/token_info?network=${TESTNET}&asset=USDC`);
    expect(refund.success).toBe(true);
    expect(payerBefore - (await usdc(payer.address))).toBe(charged);
    expect((await usdc(TREASURY)) - treasuryBefore).toBe(charged);
    const read = await json(await fetch(`${service.url}/api/channels/${channelId}`));
    expect(read.data).toMatchObject({ charged: charged.toString(), claimed: charged.toString(), refundable: '0' });
  }, 120_000);
});
