/**
 * The x402 `batch-settlement` and `upto` contracts the devnet places (decision 0073), proven by
 * the official code: @x402/evm's own clients sign, @x402/evm's own facilitator schemes (registered
 * in our LocalFacilitator beside exact) verify and submit, and the chain's balances are checked to
 * the unit. Nothing of ours signs or encodes a payment here; the claim, settle and refund payloads
 * are the data the official server hands its facilitator (BatchSettlementChannelManager), written
 * out.
 */
import type { PaymentRequirements } from '@x402/core/types';
import { toClientEvmSigner } from '@x402/evm';
import {
  BatchSettlementEvmScheme,
  computeChannelId,
  InMemoryClientChannelStorage,
  signVoucher,
  updateChannelFromSettle,
} from '@x402/evm/batch-settlement/client';
import { UptoEvmScheme } from '@x402/evm/upto/client';
import { createTestClient, createWalletClient, http, maxUint256, parseEther, type Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { DEVNET_X402_CONTRACTS, devnetAccount, USDC_ABI } from '../../../src/adapters/chain/anvil/devnet-constants.js';
import { LocalFacilitator } from '../../../src/adapters/facilitator/local/local-facilitator.js';
import { CONTRACTS } from '../../../src/adapters/kit/evm/contracts/artifacts.js';
import { viemChain } from '../../../src/adapters/kit/evm/viem-chain.js';
import { NETWORKS, PRODUCTION, TESTNET } from '../../../src/domain/network.js';
import type { PaymentPayload } from '../../../src/ports/facilitator.js';
import { devnetPerFile, TestDevnet } from '../../support/devnet.js';
import { freePorts } from '../../support/free-ports.js';

const KEY = `0x${Buffer.from(devnetAccount(0).getHdKey().privateKey!).toString('hex')}` as Hex;
const FACILITATOR = devnetAccount(0).address;
const NETWORK = TESTNET;
const USDC = NETWORKS[NETWORK].usdc;
const BATCH_SETTLEMENT = DEVNET_X402_CONTRACTS.find((c) => c.name === 'X402BatchSettlement')!.address;
const PERMIT2 = DEVNET_X402_CONTRACTS.find((c) => c.name === 'Permit2')!.address;
const BATCH_ABI = CONTRACTS.X402BatchSettlement.abi;

const devnet = devnetPerFile();
const rpcUrls = () => ({ [PRODUCTION]: devnet.chains[PRODUCTION].rpcUrl, [TESTNET]: devnet.chains[TESTNET].rpcUrl });
const chain = () => devnet.publicClient(NETWORK);
const facilitator = () => new LocalFacilitator({ settlementKey: KEY, rpcUrls: rpcUrls() });

/** A payer of its own: `usdc` minted, some ETH for its own approval transaction. */
async function newPayer(usdc: bigint): Promise<PrivateKeyAccount> {
  const account = privateKeyToAccount(generatePrivateKey());
  await devnet.mint(NETWORK, account.address, usdc);
  await createTestClient({ mode: 'anvil', transport: http(devnet.chains[NETWORK].rpcUrl) }).setBalance({ address: account.address, value: parseEther('1') });
  return account;
}

const clientSigner = (account: PrivateKeyAccount) => toClientEvmSigner(account, chain());
const usdc = (address: Hex) => devnet.usdcBalance(NETWORK, address);
const channel = async (channelId: Hex) => {
  const [balance, totalClaimed] = (await chain().readContract({ address: BATCH_SETTLEMENT, abi: BATCH_ABI, functionName: 'channels', args: [channelId] })) as [bigint, bigint];
  return { balance, totalClaimed };
};

/** The offer a server makes from the facilitator's supported kind, as @x402/evm's server schemes do. */
async function offer(scheme: 'batch-settlement' | 'upto', amount: bigint, payTo: Hex): Promise<PaymentRequirements> {
  const kind = (await facilitator().supported()).find((k) => k.scheme === scheme && k.network === NETWORK && k.x402Version === 2);
  expect(kind).toBeDefined();
  return {
    scheme,
    network: NETWORK,
    asset: USDC,
    amount: amount.toString(),
    payTo,
    maxTimeoutSeconds: 300,
    extra: { ...kind!.extra, ...NETWORKS[NETWORK].eip712, ...(scheme === 'batch-settlement' ? { withdrawDelay: 900 } : {}) },
  };
}

const envelope = (accepted: PaymentRequirements, payload: object, extensions?: Record<string, unknown>): PaymentPayload => ({
  x402Version: 2,
  accepted,
  payload: payload as Record<string, unknown>,
  ...(extensions ? { extensions } : {}),
});

describe('the devnet places the x402 contracts', () => {
  it('at their canonical addresses on both chains', async () => {
    for (const network of [PRODUCTION, TESTNET] as const) {
      for (const { name, address } of DEVNET_X402_CONTRACTS) {
        expect(await devnet.publicClient(network).getCode({ address }), `${name} on ${network}`).toBe(CONTRACTS[name].deployedBytecode);
      }
    }
  });

  it('lists batch-settlement and upto beside exact, with what their offers need', async () => {
    const kinds = await facilitator().supported();
    for (const network of [PRODUCTION, TESTNET] as const) {
      expect(kinds).toContainEqual({ x402Version: 2, scheme: 'exact', network });
      expect(kinds).toContainEqual({ x402Version: 2, scheme: 'batch-settlement', network, extra: { receiverAuthorizer: FACILITATOR } });
      expect(kinds).toContainEqual({ x402Version: 2, scheme: 'upto', network, extra: { facilitatorAddress: FACILITATOR } });
    }
  });
});

describe('batch-settlement, by the official client and facilitator', () => {
  it('deposits once, takes vouchers, claims them in one batch, settles to the receiver and refunds the rest, to the unit', async () => {
    const f = facilitator();
    const payer = await newPayer(100_000_000n);
    const receiver = privateKeyToAccount(generatePrivateKey()).address;
    const price = 1_000n;
    const accepted = await offer('batch-settlement', price, receiver);
    const payerBefore = await usdc(payer.address);

    // Two channels of the one payer (two salts), each its own client as a wallet would keep them.
    const storageA = new InMemoryClientChannelStorage();
    const storageB = new InMemoryClientChannelStorage();
    const clientA = new BatchSettlementEvmScheme(clientSigner(payer), { storage: storageA, depositPolicy: { depositMultiplier: 10 } });
    const clientB = new BatchSettlementEvmScheme(clientSigner(payer), { storage: storageB, salt: `0x${'01'.padStart(64, '0')}`, depositPolicy: { depositMultiplier: 3 } });
    const configA = clientA.buildChannelConfig(accepted);
    const configB = clientB.buildChannelConfig(accepted);
    const idA = computeChannelId(configA, NETWORK);
    const idB = computeChannelId(configB, NETWORK);
    expect(idA).not.toBe(idB);
    expect(await chain().readContract({ address: BATCH_SETTLEMENT, abi: BATCH_ABI, functionName: 'getChannelId', args: [configA] })).toBe(idA);

    /** One paid request: the client pays, the facilitator verifies (and settles a deposit), the server charges `charged`. */
    async function pay(client: BatchSettlementEvmScheme, storage: InMemoryClientChannelStorage, channelId: Hex, charged: bigint) {
      const { payload } = await client.createPaymentPayload(2, accepted);
      const paid = envelope(accepted, payload);
      const verified = await f.verify(paid, accepted);
      expect(verified, JSON.stringify(verified)).toMatchObject({ isValid: true, payer: payer.address });
      const deposit = (payload as { type: string; deposit?: { amount: string } }).deposit;
      if (deposit) {
        const settled = await f.settle(paid, accepted);
        expect(settled, JSON.stringify(settled)).toMatchObject({ success: true, amount: deposit.amount });
      }
      await updateChannelFromSettle(storage, {
        server: { chargedAmount: charged.toString() },
        local: { channelId, requestAmount: price.toString(), ...(deposit ? { depositAmount: deposit.amount } : {}) },
      });
      return payload as { type: string; voucher: { channelId: Hex; maxClaimableAmount: string; signature: Hex } };
    }

    // Channel A: the first request deposits 10 × the price, gasless (an EIP-3009 authorization the facilitator submits).
    const first = await pay(clientA, storageA, idA, 1_000n);
    expect(first.type).toBe('deposit');
    expect(await channel(idA)).toEqual({ balance: 10_000n, totalClaimed: 0n });
    expect(await usdc(payer.address)).toBe(payerBefore - 10_000n);
    // Then vouchers only, each cumulative; the server charges less than the price where the work cost less.
    const vouchers = [first];
    for (const charged of [1_000n, 400n, 1_000n]) vouchers.push(await pay(clientA, storageA, idA, charged));
    expect(vouchers.slice(1).map((v) => v.type)).toEqual(['voucher', 'voucher', 'voucher']);
    expect(vouchers.map((v) => v.voucher.maxClaimableAmount)).toEqual(['1000', '2000', '3000', '3400']);
    const chargedA = 3_400n;

    // Channel B: a deposit and one voucher.
    const firstB = await pay(clientB, storageB, idB, 1_000n);
    const secondB = await pay(clientB, storageB, idB, 700n);
    expect(firstB.type).toBe('deposit');
    expect(secondB.voucher.maxClaimableAmount).toBe('2000');
    expect(await channel(idB)).toEqual({ balance: 3_000n, totalClaimed: 0n });

    // Refused by verify: a voucher over the deposit, one signed by another key, one for another channel.
    const payerSigner = clientSigner(payer);
    const over = await signVoucher(payerSigner, idA, '10001', NETWORK);
    expect(await f.verify(envelope(accepted, { type: 'voucher', channelConfig: configA, voucher: over }), accepted)).toMatchObject({
      isValid: false,
      invalidReason: 'invalid_batch_settlement_evm_cumulative_exceeds_balance',
    });
    const forged = await signVoucher(clientSigner(privateKeyToAccount(generatePrivateKey())), idA, '3500', NETWORK);
    expect(await f.verify(envelope(accepted, { type: 'voucher', channelConfig: configA, voucher: forged }), accepted)).toMatchObject({
      isValid: false,
      invalidReason: 'invalid_batch_settlement_evm_voucher_signature',
    });
    const otherChannel = await signVoucher(payerSigner, idB, '3500', NETWORK);
    expect(await f.verify(envelope(accepted, { type: 'voucher', channelConfig: configA, voucher: otherChannel }), accepted)).toMatchObject({
      isValid: false,
      invalidReason: 'invalid_batch_settlement_evm_channel_id_mismatch',
    });
    const unfunded = { ...configA, salt: `0x${'02'.padStart(64, '0')}` as Hex };
    const unfundedVoucher = await signVoucher(payerSigner, computeChannelId(unfunded, NETWORK), '1000', NETWORK);
    expect(await f.verify(envelope(accepted, { type: 'voucher', channelConfig: unfunded, voucher: unfundedVoucher }), accepted)).toMatchObject({
      isValid: false,
      invalidReason: 'invalid_batch_settlement_evm_channel_not_found',
    });

    // The claim: channel A's last voucher and channel B's first, in one batch (the facilitator signs as receiver authorizer).
    const lastA = vouchers.at(-1)!;
    const claims = [
      { voucher: { channel: configA, maxClaimableAmount: lastA.voucher.maxClaimableAmount }, signature: lastA.voucher.signature, totalClaimed: chargedA.toString() },
      { voucher: { channel: configB, maxClaimableAmount: firstB.voucher.maxClaimableAmount }, signature: firstB.voucher.signature, totalClaimed: '1000' },
    ];
    const claimed = await f.settle(envelope(accepted, { type: 'claim', claims }), accepted);
    expect(claimed, JSON.stringify(claimed)).toMatchObject({ success: true });
    expect(await channel(idA)).toEqual({ balance: 10_000n, totalClaimed: chargedA });
    expect(await channel(idB)).toEqual({ balance: 3_000n, totalClaimed: 1_000n });
    // The same batch again claims nothing more.
    expect(await f.settle(envelope(accepted, { type: 'claim', claims }), accepted)).toMatchObject({ success: true });
    expect(await channel(idA)).toEqual({ balance: 10_000n, totalClaimed: chargedA });

    // A replayed (stale) voucher is refused now that its amount is claimed.
    expect(await f.verify(envelope(accepted, { type: 'voucher', channelConfig: configA, voucher: lastA.voucher }), accepted)).toMatchObject({
      isValid: false,
      invalidReason: 'invalid_batch_settlement_evm_cumulative_below_claimed',
    });
    // A claim above what the voucher allows is refused by the contract (the facilitator's simulation).
    const greedy = [{ ...claims[0]!, totalClaimed: '3401' }];
    expect(await f.settle(envelope(accepted, { type: 'claim', claims: greedy }), accepted)).toMatchObject({
      success: false,
      errorReason: 'invalid_batch_settlement_evm_claim_simulation_failed',
    });

    // Settle: the receiver is paid what was claimed for it, once.
    const settled = await f.settle(envelope(accepted, { type: 'settle', receiver, token: USDC }), accepted);
    expect(settled, JSON.stringify(settled)).toMatchObject({ success: true, amount: (chargedA + 1_000n).toString() });
    expect(await usdc(receiver)).toBe(chargedA + 1_000n);
    expect(await f.settle(envelope(accepted, { type: 'settle', receiver, token: USDC }), accepted)).toMatchObject({
      success: false,
      errorReason: 'invalid_batch_settlement_evm_nothing_to_settle',
    });

    // Cooperative refunds. Channel A: what is left, the receiver authorizer's signature by the facilitator.
    const refundVerify = await f.verify(envelope(accepted, { type: 'refund', channelConfig: configA, voucher: lastA.voucher }), accepted);
    expect(refundVerify).toMatchObject({ isValid: true });
    const refundA = await f.settle(
      envelope(accepted, { type: 'refund', channelConfig: configA, voucher: lastA.voucher, amount: '10000', refundNonce: '0', claims: [] }),
      accepted,
    );
    expect(refundA, JSON.stringify(refundA)).toMatchObject({ success: true, amount: (10_000n - chargedA).toString() });
    expect(await channel(idA)).toEqual({ balance: chargedA, totalClaimed: chargedA });
    // The same refund nonce serves once.
    expect(
      await f.settle(envelope(accepted, { type: 'refund', channelConfig: configA, voucher: lastA.voucher, amount: '1', refundNonce: '0', claims: [] }), accepted),
    ).toMatchObject({ success: false });
    // Channel B: its last voucher claimed with the refund in one transaction (multicall).
    const refundB = await f.settle(
      envelope(accepted, {
        type: 'refund',
        channelConfig: configB,
        voucher: secondB.voucher,
        amount: '3000',
        refundNonce: '0',
        claims: [{ voucher: { channel: configB, maxClaimableAmount: secondB.voucher.maxClaimableAmount }, signature: secondB.voucher.signature, totalClaimed: '1700' }],
      }),
      accepted,
    );
    expect(refundB, JSON.stringify(refundB)).toMatchObject({ success: true, amount: '1300' });
    expect(await channel(idB)).toEqual({ balance: 1_700n, totalClaimed: 1_700n });
    expect(await f.settle(envelope(accepted, { type: 'settle', receiver, token: USDC }), accepted)).toMatchObject({ success: true, amount: '700' });

    // Books: the payer lost exactly what was charged, the receiver gained it, the contract holds nothing of theirs.
    const charged = chargedA + 1_700n;
    expect(await usdc(payer.address)).toBe(payerBefore - charged);
    expect(await usdc(receiver)).toBe(charged);
    const [totalClaimed, totalSettled] = (await chain().readContract({ address: BATCH_SETTLEMENT, abi: BATCH_ABI, functionName: 'receivers', args: [receiver, USDC] })) as [bigint, bigint];
    expect({ totalClaimed, totalSettled }).toEqual({ totalClaimed: charged, totalSettled: charged });
  });
});

describe("batch-settlement: the payer's own withdrawal", () => {
  it('after the channel\'s withdrawDelay only, and only what is unclaimed, the receiver claiming meanwhile', async () => {
    const f = facilitator();
    const payer = await newPayer(1_000_000n);
    const receiver = privateKeyToAccount(generatePrivateKey()).address;
    const accepted = await offer('batch-settlement', 1_000n, receiver);
    const client = new BatchSettlementEvmScheme(clientSigner(payer), { depositPolicy: { depositMultiplier: 5 } });
    const config = client.buildChannelConfig(accepted);
    const channelId = computeChannelId(config, NETWORK);
    const { payload } = await client.createPaymentPayload(2, accepted);
    expect(await f.settle(envelope(accepted, payload), accepted)).toMatchObject({ success: true, amount: '5000' });
    const voucher = (payload as { voucher: { maxClaimableAmount: string; signature: Hex } }).voucher;

    const url = devnet.chains[NETWORK].rpcUrl;
    const wallet = createWalletClient({ account: payer, chain: viemChain(NETWORK, url), transport: http(url) });
    const call = async (functionName: 'initiateWithdraw' | 'finalizeWithdraw', args: readonly unknown[]) =>
      (await chain().waitForTransactionReceipt({ hash: await wallet.writeContract({ address: BATCH_SETTLEMENT, abi: BATCH_ABI, functionName, args, gas: 300_000n }) })).status;
    // Someone else than the payer cannot start it.
    await expect(chain().simulateContract({ account: receiver, address: BATCH_SETTLEMENT, abi: BATCH_ABI, functionName: 'initiateWithdraw', args: [config, 5_000n] })).rejects.toThrow();
    expect(await call('initiateWithdraw', [config, 5_000n])).toBe('success');
    // Before the delay: refused.
    await expect(chain().simulateContract({ account: payer, address: BATCH_SETTLEMENT, abi: BATCH_ABI, functionName: 'finalizeWithdraw', args: [config] })).rejects.toThrow(/WithdrawNotReady/);
    // Meanwhile the receiver claims its voucher.
    const claims = [{ voucher: { channel: config, maxClaimableAmount: voucher.maxClaimableAmount }, signature: voucher.signature, totalClaimed: '1000' }];
    expect(await f.settle(envelope(accepted, { type: 'claim', claims }), accepted)).toMatchObject({ success: true });
    await createTestClient({ mode: 'anvil', transport: http(url) }).increaseTime({ seconds: 900 });
    const before = await usdc(payer.address);
    expect(await call('finalizeWithdraw', [config])).toBe('success');
    expect(await usdc(payer.address)).toBe(before + 4_000n);
    expect(await channel(channelId)).toEqual({ balance: 1_000n, totalClaimed: 1_000n });
    expect(await f.settle(envelope(accepted, { type: 'settle', receiver, token: USDC }), accepted)).toMatchObject({ success: true, amount: '1000' });
    expect(await usdc(receiver)).toBe(1_000n);
  });
});

describe('batch-settlement deposits through Permit2', () => {
  it('the client signs a Permit2 witness transfer to the Permit2 deposit collector; the facilitator deposits it', async () => {
    const f = facilitator();
    const payer = await newPayer(10_000_000n);
    const receiver = privateKeyToAccount(generatePrivateKey()).address;
    const base = await offer('batch-settlement', 1_000n, receiver);
    const accepted = { ...base, extra: { ...base.extra, assetTransferMethod: 'permit2' } };
    const wallet = createWalletClient({ account: payer, chain: viemChain(NETWORK, devnet.chains[NETWORK].rpcUrl), transport: http(devnet.chains[NETWORK].rpcUrl) });
    await chain().waitForTransactionReceipt({ hash: await wallet.writeContract({ address: USDC, abi: USDC_ABI, functionName: 'approve', args: [PERMIT2, maxUint256] }) });
    const client = new BatchSettlementEvmScheme(clientSigner(payer), { depositPolicy: { depositMultiplier: 4 } });
    const channelId = computeChannelId(client.buildChannelConfig(accepted), NETWORK);
    const { payload } = await client.createPaymentPayload(2, accepted);
    expect(payload).toHaveProperty('deposit.authorization.permit2Authorization');
    const paid = envelope(accepted, payload);
    expect(await f.verify(paid, accepted)).toMatchObject({ isValid: true });
    expect(await f.settle(paid, accepted)).toMatchObject({ success: true, amount: '4000' });
    expect(await channel(channelId)).toEqual({ balance: 4_000n, totalClaimed: 0n });
    expect(await usdc(payer.address)).toBe(10_000_000n - 4_000n);
    // The Permit2 nonce is spent: the same deposit again fails.
    expect((await f.settle(paid, accepted)).success).toBe(false);
    expect(await channel(channelId)).toEqual({ balance: 4_000n, totalClaimed: 0n });
  });
});

describe('upto, by the official client and facilitator', () => {
  it('the client signs a maximum; the facilitator settles the smaller actual amount', async () => {
    const f = facilitator();
    const payer = await newPayer(50_000_000n);
    const receiver = privateKeyToAccount(generatePrivateKey()).address;
    const maximum = 5_000_000n;
    const actual = 1_234_567n;
    const accepted = await offer('upto', maximum, receiver);
    // The payer's one-time Permit2 approval, its own transaction.
    const wallet = createWalletClient({ account: payer, chain: viemChain(NETWORK, devnet.chains[NETWORK].rpcUrl), transport: http(devnet.chains[NETWORK].rpcUrl) });
    await chain().waitForTransactionReceipt({ hash: await wallet.writeContract({ address: USDC, abi: USDC_ABI, functionName: 'approve', args: [PERMIT2, maxUint256] }) });

    const client = new UptoEvmScheme(clientSigner(payer));
    const { payload } = await client.createPaymentPayload(2, accepted);
    const paid = envelope(accepted, payload);
    expect(await f.verify(paid, accepted)).toMatchObject({ isValid: true, payer: payer.address });
    const settled = await f.settle(paid, { ...accepted, amount: actual.toString() });
    expect(settled, JSON.stringify(settled)).toMatchObject({ success: true, amount: actual.toString() });
    expect(await usdc(payer.address)).toBe(50_000_000n - actual);
    expect(await usdc(receiver)).toBe(actual);
    // The authorization is spent: settling it again moves nothing.
    expect((await f.settle(paid, { ...accepted, amount: '1' })).success).toBe(false);
    expect(await usdc(receiver)).toBe(actual);
  });

  it('without an approval of its own: the EIP-2612 permit the client signs lets Permit2 spend (gas sponsoring)', async () => {
    const f = facilitator();
    const payer = await newPayer(50_000_000n);
    const receiver = privateKeyToAccount(generatePrivateKey()).address;
    const accepted = await offer('upto', 2_000_000n, receiver);
    const client = new UptoEvmScheme(clientSigner(payer));
    const result = await client.createPaymentPayload(2, accepted, { extensions: { eip2612GasSponsoring: {} } } as never);
    expect(result.extensions).toHaveProperty('eip2612GasSponsoring');
    const paid = envelope(accepted, result.payload, result.extensions);
    expect(await f.verify(paid, accepted)).toMatchObject({ isValid: true });
    const settled = await f.settle(paid, { ...accepted, amount: '750000' });
    expect(settled, JSON.stringify(settled)).toMatchObject({ success: true, amount: '750000' });
    expect(await usdc(payer.address)).toBe(50_000_000n - 750_000n);
    expect(await usdc(receiver)).toBe(750_000n);
    expect(await chain().readContract({ address: USDC, abi: USDC_ABI, functionName: 'nonces', args: [payer.address] })).toBe(1n);
  });
});

describe('across restarts', () => {
  const dirs: string[] = [];
  afterAll(() => {
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  it('the contracts stand at their addresses after a restart, after a kill -9, and after a rebuild from the journal; a channel deposited before keeps its balance', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'devnet-x402-'));
    dirs.push(dir);
    const port = await freePorts();
    const said: string[] = [];
    const logger = { debug: () => undefined, info: () => undefined, warn: (m: string) => void said.push(m), error: () => undefined };
    let chainDevnet = await TestDevnet.start({ port, stateDir: dir, logger });
    const payer = privateKeyToAccount(generatePrivateKey());
    let channelId: Hex;
    try {
      await chainDevnet.mint(NETWORK, payer.address, 5_000n);
      const urls = { [PRODUCTION]: chainDevnet.chains[PRODUCTION].rpcUrl, [TESTNET]: chainDevnet.chains[TESTNET].rpcUrl };
      const f = new LocalFacilitator({ settlementKey: KEY, rpcUrls: urls });
      const kind = (await f.supported()).find((k) => k.scheme === 'batch-settlement' && k.network === NETWORK)!;
      const accepted: PaymentRequirements = {
        scheme: 'batch-settlement',
        network: NETWORK,
        asset: USDC,
        amount: '1000',
        payTo: FACILITATOR,
        maxTimeoutSeconds: 300,
        extra: { ...kind.extra, ...NETWORKS[NETWORK].eip712, withdrawDelay: 900 },
      };
      const client = new BatchSettlementEvmScheme(toClientEvmSigner(payer, chainDevnet.publicClient(NETWORK)), { depositPolicy: { depositMultiplier: 3 } });
      channelId = computeChannelId(client.buildChannelConfig(accepted), NETWORK);
      const { payload } = await client.createPaymentPayload(2, accepted);
      expect(await f.settle(envelope(accepted, payload), accepted)).toMatchObject({ success: true, amount: '3000' });
    } catch (e) {
      await chainDevnet.stop();
      throw e;
    }
    const standing = async (d: TestDevnet) => {
      for (const network of [PRODUCTION, TESTNET] as const) {
        for (const { name, address } of DEVNET_X402_CONTRACTS) {
          expect(await d.publicClient(network).getCode({ address }), `${name} on ${network}`).toBe(CONTRACTS[name].deployedBytecode);
        }
      }
      const [balance] = (await d.publicClient(NETWORK).readContract({ address: BATCH_SETTLEMENT, abi: BATCH_ABI, functionName: 'channels', args: [channelId] })) as [bigint, bigint];
      expect(balance).toBe(3_000n);
      expect(await d.usdcBalance(NETWORK, payer.address)).toBe(2_000n);
    };
    const restart = async (before: () => void) => {
      before();
      chainDevnet = await TestDevnet.start({ port, stateDir: dir, logger });
      try {
        await standing(chainDevnet);
      } finally {
        await chainDevnet.stop();
      }
    };

    // A kill -9 of both chains before their next state save: the journal's deposit is replayed.
    for (const pid of chainDevnet.pids) process.kill(pid, 'SIGKILL');
    await chainDevnet.stop();
    await restart(() => undefined);
    expect(said).toContain('devnet eip155:84532: replayed 2 journaled transaction(s) the saved state had lost');
    // A plain restart from the saved state.
    await restart(() => undefined);
    // The state lost, the journal kept: the chain is rebuilt from its genesis, the contracts placed before the deposit replays.
    await restart(() => {
      rmSync(join(dir, 'anvil-84532.json'));
      rmSync(join(dir, 'anvil-84532.baseline.json'), { force: true });
      said.length = 0;
    });
    expect(said.some((m) => m.startsWith('devnet eip155:84532: rebuilding from its own genesis block'))).toBe(true);
  }, 120_000);
});
