/**
 * Pay up to on the devnet (docs/payments.md "Pay up to", decision 0082), on SQLite and on
 * PostgreSQL: the official @x402/fetch client with @x402/evm's upto scheme, its selector picking
 * the upto offer, buys by tokens and is charged the trade's price — its USDC falls by exactly that,
 * below the maximum it signed, through the x402 upto proxy and Permit2 the devnet places. Once with
 * the payer's own Permit2 approval, once gasless: a payer with no ETH and no approval signs the
 * EIP-2612 permit the 402's gas-sponsoring extension asks for, and the facilitator submits it. The
 * trade, the position and the payment are booked as the chain moved them. A maximum below the
 * price is refused with its reason, nothing moved; the same payment again gets the stored answer.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { encodePaymentSignatureHeader } from '@x402/core/http';
import { toClientEvmSigner } from '@x402/evm';
import { UptoEvmScheme } from '@x402/evm/upto/client';
import { wrapFetchWithPaymentFromConfig, type PaymentRequirements } from '@x402/fetch';
import { createTestClient, createWalletClient, http, maxUint256, parseEther, type Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEVNET_X402_CONTRACTS, USDC_ABI } from '../../src/adapters/chain/anvil/devnet-constants.js';
import { viemChain } from '../../src/adapters/kit/evm/viem-chain.js';
import { startService, type RunningService } from '../../src/bootstrap/compose.js';
import { parseTokens, parseUsd } from '../../src/domain/money.js';
import { NETWORKS, TESTNET } from '../../src/domain/network.js';
import { testDatabases } from '../support/databases.js';
import { devnetTools } from '../support/devnet.js';
import { devnetConfig, drainUntil, json, ShiftableClock } from '../support/service.js';
import { decodeBase64Json, devAccount, payingFetch } from '../support/x402-client.js';

const TREASURY = '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266';
const USDC = NETWORKS[TESTNET].assets.USDC.address as Hex;
const PERMIT2 = DEVNET_X402_CONTRACTS.find((c) => c.name === 'Permit2')!.address;
const isUsdcUpto = (a: { scheme: string; asset: string }) => a.scheme === 'upto' && a.asset.toLowerCase() === USDC.toLowerCase();

describe.each(testDatabases('upto'))('upto on the devnet, on %s', (_name, openStore) => {
  const clock = new ShiftableClock();
  const dataDir = mkdtempSync(join(tmpdir(), 'launchpad-upto-'));
  const creator = devAccount(8);
  let service: RunningService;
  let cleanup: () => Promise<void>;
  let tokenId: string;

  beforeAll(async () => {
    const store = await openStore();
    cleanup = store.cleanup;
    service = await startService(await devnetConfig(dataDir), { ports: { clock, uow: store.uow } });
    const res = await post('/tokens', { name: 'Up To', symbol: 'UPTO' }, payingFetch(creator), { 'x-wallet-address': creator.address });
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
  const tools = () => devnetTools(service.devnet!);
  const chain = () => tools().publicClient(TESTNET);
  const usdc = (address: string) => tools().assetBalance(TESTNET, 'USDC', address as Hex);
  const rpcUrl = () => service.devnet!.chains[TESTNET].rpcUrl;

  /** A wallet of its own with `usdc` minted; `gas`: some ETH for a transaction of its own. */
  async function newPayer(usdcUnits: bigint, gas: boolean): Promise<PrivateKeyAccount> {
    const account = privateKeyToAccount(generatePrivateKey());
    await tools().mint(TESTNET, account.address, usdcUnits);
    if (gas) await createTestClient({ mode: 'anvil', transport: http(rpcUrl()) }).setBalance({ address: account.address, value: parseEther('1') });
    return account;
  }

  /** The official fetch wrapper over the official upto client (reading the chain for its EIP-2612 permit), picking the USDC upto offer. */
  function uptoFetch(account: PrivateKeyAccount) {
    const scheme = new UptoEvmScheme(toClientEvmSigner(account, chain()));
    return wrapFetchWithPaymentFromConfig(fetch, {
      schemes: [{ network: 'eip155:*', client: scheme }],
      spendControls: false,
      paymentRequirementsSelector: (_version, accepts) => accepts.find(isUsdcUpto) ?? accepts[0]!,
    });
  }

  /** The 402 `account` is asked for buying `tokens`: its header's PaymentRequired object. */
  async function asked(tokens: string, account: PrivateKeyAccount) {
    const res = await post('/entrypoints/token_buy_tokens', { tokenId, tokens }, fetch, { 'x-wallet-address': account.address });
    expect(res.status).toBe(402);
    return decodeBase64Json<any>(res.headers.get('payment-required'));
  }

  /** Buys `tokens` by upto and checks what moved against the books. */
  async function buysAndIsCharged(account: PrivateKeyAccount, tokens: string) {
    const required = await asked(tokens, account);
    expect(required.extensions.eip2612GasSponsoring).toBeDefined();
    const maximum = BigInt(required.accepts.find(isUsdcUpto).amount);
    const before = await usdc(account.address);
    const treasuryBefore = await usdc(TREASURY);
    const res = await post('/entrypoints/token_buy_tokens', { tokenId, tokens }, uptoFetch(account), { 'x-wallet-address': account.address });
    expect(res.status, await res.clone().text()).toBe(200);
    const data = (await json(res)).data;
    const settlement = decodeBase64Json<any>(res.headers.get('payment-response'));
    const charged = BigInt(settlement.amount);
    expect(charged).toBe(parseUsd(data.usdSpent));
    expect(charged).toBeLessThan(maximum);
    // Exactly the charge moved, not the maximum.
    expect(before - (await usdc(account.address))).toBe(charged);
    expect((await usdc(TREASURY)) - treasuryBefore).toBe(charged);
    expect((await chain().getTransactionReceipt({ hash: settlement.transaction })).status).toBe('success');
    // The books: the payment is the upto transfer of what moved, the trade booked once at that price.
    const payment = await service.application.deps.uow.run((s) => s.payments.get(data.payment.paymentId));
    expect(payment).toMatchObject({ scheme: 'upto', state: 'APPLIED', amount: charged, usdValue: charged, settlementTx: settlement.transaction });
    const trades = await service.application.deps.uow.run((s) => s.trades.listByToken(tokenId, { limit: 100 }));
    const booked = trades.items.filter((t) => t.paymentId === payment!.paymentId);
    expect(booked).toHaveLength(1);
    expect(booked[0]!.usdAmount).toBe(charged);
    expect(parseTokens(data.tokensReceived)).toBeGreaterThanOrEqual(parseTokens(tokens));
    return { data, charged };
  }

  /** The wallet's position once its tokens are delivered: the books' balance and the chain's. */
  async function position(account: PrivateKeyAccount) {
    const read = async () =>
      ((await json(await fetch(`${service.url}/positions?wallet=${account.address}&network=${TESTNET}`))).data.items as any[]).find((p) => p.tokenId === tokenId);
    await drainUntil(service, clock, async () => {
      const p = await read();
      return p !== undefined && p.onChainBalance === p.balance;
    });
    return read();
  }

  it('with its own Permit2 approval: charged the trade’s price, below the maximum it signed; books = chain', async () => {
    const account = await newPayer(50_000_000n, true);
    const wallet = createWalletClient({ account, chain: viemChain(TESTNET, rpcUrl()), transport: http(rpcUrl()) });
    await chain().waitForTransactionReceipt({ hash: await wallet.writeContract({ address: USDC, abi: USDC_ABI, functionName: 'approve', args: [PERMIT2, maxUint256] }) });
    const { data } = await buysAndIsCharged(account, '1000000');
    const held = await position(account);
    expect(held.balance).toBe(data.tokensReceived);
    expect(held.onChainBalance).toBe(data.tokensReceived);
  }, 60_000);

  it('gasless: no ETH, no approval — the EIP-2612 permit it signs lets Permit2 spend, submitted by the facilitator', async () => {
    const account = await newPayer(50_000_000n, false);
    expect(await chain().getBalance({ address: account.address })).toBe(0n);
    const { data } = await buysAndIsCharged(account, '1000001');
    expect(await chain().getTransactionCount({ address: account.address })).toBe(0);
    expect(await chain().readContract({ address: USDC, abi: USDC_ABI, functionName: 'nonces', args: [account.address] })).toBe(1n);
    expect((await position(account)).onChainBalance).toBe(data.tokensReceived);
  }, 60_000);

  it('a maximum below the price: 402 with the reason, nothing moved; the same payment again gets the stored answer', async () => {
    const account = await newPayer(50_000_000n, true);
    const wallet = createWalletClient({ account, chain: viemChain(TESTNET, rpcUrl()), transport: http(rpcUrl()) });
    await chain().waitForTransactionReceipt({ hash: await wallet.writeContract({ address: USDC, abi: USDC_ABI, functionName: 'approve', args: [PERMIT2, maxUint256] }) });
    const tokens = '1000002';
    const required = await asked(tokens, account);
    const offer: PaymentRequirements = required.accepts.find(isUsdcUpto);
    const price = BigInt(required.accepts[0].amount);
    const sign = async (requirements: PaymentRequirements) => {
      const { payload } = await new UptoEvmScheme(toClientEvmSigner(account, chain())).createPaymentPayload(2, requirements);
      return encodePaymentSignatureHeader({ x402Version: 2, accepted: requirements, resource: required.resource, payload } as never);
    };
    const paidWith = async (header: string) => {
      const res = await post('/entrypoints/token_buy_tokens', { tokenId, tokens }, fetch, { 'payment-signature': header });
      return { status: res.status, body: await json(res) };
    };
    const before = await usdc(account.address);
    const short = await paidWith(await sign({ ...offer, amount: (price - 1n).toString() }));
    expect(short.status).toBe(402);
    expect(short.body.error.details.reason).toBe('upto_maximum_below_price');
    expect(await usdc(account.address)).toBe(before);

    const payment = await sign(offer);
    const first = await paidWith(payment);
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    const charged = before - (await usdc(account.address));
    expect(charged).toBe(parseUsd(first.body.data.usdSpent));
    const again = await paidWith(payment);
    expect(again).toEqual(first);
    expect(before - (await usdc(account.address))).toBe(charged);
  }, 60_000);
});
