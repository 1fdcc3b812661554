/**
 * Real settlement on the embedded devnet (two anvil chains, our EIP-3009 USDC), paid with the
 * official @x402/fetch client: balances move by exactly the prices and the proceeds, replays
 * charge nothing, and crashes or timeouts around settlement are finished by the reconciler and
 * the payout worker exactly once.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTestClient, http } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LocalFacilitator } from '../../src/adapters/facilitator/local/local-facilitator.js';
import { MemoryUnitOfWork } from '../../src/adapters/persistence/memory/memory-unit-of-work.js';
import { startService, type RunningService } from '../../src/bootstrap/compose.js';
import { formatUsd, parseUsd } from '../../src/domain/money.js';
import { PRODUCTION, TESTNET } from '../../src/domain/network.js';
import { SettlementIndeterminate } from '../../src/ports/facilitator.js';
import { x402Client } from '@x402/core/client';
import { encodePaymentSignatureHeader } from '@x402/core/http';
import { ExactEvmScheme } from '@x402/evm';
import { extractReceiptFromResponse, verifyReceiptSignatureEIP712, type EIP712SignedReceipt } from '@x402/extensions/offer-receipt';
import { appendPaymentIdentifierToExtensions, generatePaymentId } from '@x402/extensions/payment-identifier';
import { createSIWxPayload, encodeSIWxHeader } from '@x402/extensions/sign-in-with-x';
import { decodePaymentResponseHeader } from '@x402/fetch';
import { getAddress } from 'viem';
import { devnetTools } from '../support/devnet.js';
import { waitFor } from '../support/wait.js';
import { devAccount, payingFetch } from '../support/x402-client.js';
import { signedSellBody } from '../support/onchain.js';
import { devnetConfig, drainWorkers as drain, json, ShiftableClock } from '../support/service.js';

const TREASURY = '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266';
const dataDir = mkdtempSync(join(tmpdir(), 'launchpad-devnet-'));
const clock = new ShiftableClock();
const uow = new MemoryUnitOfWork();
let crashAfterSettle = false;
let timeoutNextSettle = false;
let loseNextSettleHash = false;
let crashAfterPayoutRecord = false;
let service: RunningService;

beforeAll(async () => {
  const config = await devnetConfig(dataDir, {
    DEVNET_IDLE_BLOCK_SECONDS: '0', // these tests decide when blocks are mined
  });
  let real: LocalFacilitator | null = null;
  service = await startService(config, {
    ports: {
      clock,
      uow,
      // The real in-process facilitator, with a seam that loses the settlement's answer.
      facilitator: {
        verify: (p, r) => real!.verify(p, r),
        supported: () => real!.supported(),
        settle: async (p, r) => {
          const result = await real!.settle(p, r);
          if (timeoutNextSettle) {
            timeoutNextSettle = false;
            throw new SettlementIndeterminate('simulated timeout after the transfer was mined');
          }
          if (loseNextSettleHash) {
            // What the official facilitator answers when sending threw although the node took the transaction.
            loseNextSettleHash = false;
            return { success: false, errorReason: 'invalid_exact_evm_transaction_failed', transaction: '', network: result.network };
          }
          return result;
        },
      },
    },
    hooks: {
      afterSettle: async () => {
        if (crashAfterSettle) {
          crashAfterSettle = false;
          throw new Error('simulated crash between settlement and apply');
        }
      },
      payouts: {
        afterRecord: async () => {
          if (crashAfterPayoutRecord) {
            crashAfterPayoutRecord = false;
            throw new Error('simulated crash between recording and broadcasting a payout');
          }
        },
      },
    },
  });
  real = new LocalFacilitator({
    settlementKey: '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80',
    rpcUrls: { [PRODUCTION]: service.devnet!.chains[PRODUCTION].rpcUrl, [TESTNET]: service.devnet!.chains[TESTNET].rpcUrl },
    // A chain that does not mine for longer than this leaves the settlement unconfirmed.
    confirmationTimeoutMs: 4_000,
  });
}, 60_000);

afterAll(async () => {
  const pids = service.devnet!.pids;
  await service.stop();
  for (const pid of pids) expect(() => process.kill(pid, 0)).toThrow(); // no anvil left behind
  rmSync(dataDir, { recursive: true, force: true });
});

const testnetWallet = devAccount(5);
const usdc = (network: typeof PRODUCTION | typeof TESTNET, address: string) => devnetTools(service.devnet!).usdcBalance(network, address as `0x${string}`);

/** Worker passes with the clock moved past each wait (poll interval, reconciler grace). */
const drainWorkers = (passes = 3, stepMs = 2_000) => drain(service, clock, passes, stepMs);

function call(path: string, body: unknown, account = testnetWallet, f: typeof fetch = payingFetch(account)) {
  return f(`${service.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-wallet-address': account.address },
    body: JSON.stringify(body),
  });
}

describe('paying on the devnet with @x402/fetch', () => {
  let tokenId: string;

  it('create, three buys and a sell move USDC by exactly the prices and the proceeds', async () => {
    const payerBefore = await usdc(TESTNET, testnetWallet.address);
    const treasuryBefore = await usdc(TESTNET, TREASURY);
    const created = await json(await call('/tokens', { name: 'Devnet Cat', symbol: 'DCAT' }));
    tokenId = created.data.tokenId;
    expect(created.data.network).toBe(TESTNET);

    let paid = parseUsd('0.01');
    const b1 = (await json(await call('/entrypoints/token_buy_usd', { tokenId, usdAmount: '5' }))).data;
    expect(b1.tokensReceived).toBe('884495.291384607698648614');
    expect(b1.payment.transaction).toMatch(/^0x[0-9a-f]{64}$/);
    paid += parseUsd(b1.usdSpent);
    const b2 = (await json(await call('/entrypoints/token_buy_tokens', { tokenId, tokens: '100000' }))).data;
    paid += parseUsd(b2.usdSpent);
    const quote = (await json(await fetch(`${service.url}/api/quote?tokenId=${tokenId}&side=buy&usdAmount=1.25`))).data;
    const b3 = (await json(await call('/entrypoints/token_buy_quote', { quoteId: quote.quoteId }))).data;
    expect(b3.tokensReceived).toBe(quote.tokens);
    paid += parseUsd(b3.usdSpent);
    await drainWorkers(); // the token is deployed and the buys delivered: the tokens are in the wallet
    const sell = (await json(await call('/entrypoints/token_sell', await signedSellBody(service.url, testnetWallet, tokenId, '500000')))).data;
    paid += parseUsd('0.01');
    const proceeds = parseUsd(sell.usdReceived);
    expect(sell.payout.state).toBe('PENDING');

    expect(await usdc(TESTNET, testnetWallet.address)).toBe(payerBefore - paid);
    await drainWorkers(); // sends the payout, then confirms it
    expect(await usdc(TESTNET, testnetWallet.address)).toBe(payerBefore - paid + proceeds);
    expect(await usdc(TESTNET, TREASURY)).toBe(treasuryBefore + paid - proceeds);
    const payout = uow.db.payouts.get(sell.payout.payoutId)!;
    expect(payout.state).toBe('CONFIRMED');
    expect(uow.db.events.filter((e) => e.type.startsWith('payout.')).map((e) => e.type)).toEqual(['payout.sent', 'payout.confirmed']);

    // The curve's USD reserve is net USD in minus gross USD out.
    const token = (await json(await fetch(`${service.url}/tokens/${tokenId}`))).data;
    const trades = uow.db.trades.filter((t) => t.tokenId === tokenId);
    const netIn = trades.filter((t) => t.side === 'buy').reduce((s, t) => s + t.usdAmount - t.feeUsd, 0n);
    const grossOut = trades.filter((t) => t.side === 'sell').reduce((s, t) => s + t.usdAmount, 0n);
    expect(token.curve.realUsdReserve).toBe(formatUsd(netIn - grossOut));
  });

  it('detects networks from devnet history: a production wallet paying on the testnet is NETWORK_MISMATCH', async () => {
    const production = devAccount(1);
    const body = { name: 'Prod', symbol: 'PROD' };
    // Offered the testnet (it claims a testnet wallet's address), it pays there: refused, not charged.
    const challenge = await fetch(`${service.url}/tokens`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-wallet-address': testnetWallet.address },
      body: JSON.stringify(body),
    });
    const before = await usdc(TESTNET, production.address);
    const { decodeBase64Json, signPayment } = await import('../support/x402-client.js');
    const signature = await signPayment(production, decodeBase64Json(challenge.headers.get('payment-required')));
    const res = await fetch(`${service.url}/tokens`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'payment-signature': signature },
      body: JSON.stringify(body),
    });
    expect(res.status).toBe(402);
    expect((await json(res)).error).toMatchObject({ code: 'NETWORK_MISMATCH', details: { expected: PRODUCTION, received: TESTNET } });
    expect(await usdc(TESTNET, production.address)).toBe(before);
    // The same wallet, offered its own network, creates a production token.
    const created = await json(await call('/tokens', body, production));
    expect(created.data.network).toBe(PRODUCTION);
  });

  it('two concurrent requests with one signature settle once', async () => {
    const { decodeBase64Json, signPayment } = await import('../support/x402-client.js');
    const body = { tokenId, usdAmount: '2' };
    const challenge = await call('/entrypoints/token_buy_usd', body, testnetWallet, fetch);
    const signature = await signPayment(testnetWallet, decodeBase64Json(challenge.headers.get('payment-required')));
    const before = await usdc(TESTNET, testnetWallet.address);
    const send = () =>
      fetch(`${service.url}/entrypoints/token_buy_usd`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'payment-signature': signature },
        body: JSON.stringify(body),
      });
    const [a, b] = await Promise.all([send(), send()]);
    expect([a.status, b.status]).toEqual([200, 200]);
    expect(await json(a)).toEqual(await json(b));
    expect(await usdc(TESTNET, testnetWallet.address)).toBe(before - parseUsd('2'));
    // A later replay of the used authorization is answered from the record and charges nothing.
    expect((await send()).status).toBe(200);
    expect(await usdc(TESTNET, testnetWallet.address)).toBe(before - parseUsd('2'));
  });

  it('the x402 extensions (#17): a SIWx-signed first request pays its one network, the receipt names the mined transfer, a payment-identifier retry is not charged', async () => {
    const { decodeBase64Json, devAccount: account } = await import('../support/x402-client.js');
    const production = account(2); // mainnet history on the devnet
    const path = `${service.url}/entrypoints/token_info`;
    const body = JSON.stringify({ tokenId });
    const post = (headers: Record<string, string>, f: typeof fetch = fetch) =>
      f(path, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });
    // The proof, signed with the official client function over the challenge of a plain 402, names
    // the testnet chain: the wallet's own network (by its history) is what the 402 offers.
    const ext = decodeBase64Json<any>((await post({})).headers.get('payment-required')).extensions['sign-in-with-x'];
    const proof = encodeSIWxHeader(await createSIWxPayload({ ...ext.info, chainId: TESTNET, type: 'eip191' }, production, path));
    const seen: string[][] = [];
    const recording: typeof fetch = async (input, init) => {
      const res = await fetch(input, init);
      // The networks offered (each with USDC and EURC).
      if (res.status === 402) seen.push([...new Set(decodeBase64Json<any>(res.headers.get('payment-required')).accepts.map((a: { network: string }) => a.network))] as string[]);
      return res;
    };
    const before = await usdc(PRODUCTION, production.address);
    const paid = await post({ 'sign-in-with-x': proof }, payingFetch(production, recording));
    expect(paid.status).toBe(200);
    expect(seen).toEqual([[PRODUCTION]]);
    const price = service.application.deps.settings.prices.info;
    expect(await usdc(PRODUCTION, production.address)).toBe(before - price);

    const receipt = extractReceiptFromResponse(paid) as EIP712SignedReceipt;
    const verified = await verifyReceiptSignatureEIP712(receipt);
    expect(getAddress(verified.signer)).toBe(TREASURY);
    const settled = decodePaymentResponseHeader(paid.headers.get('payment-response')!);
    expect(verified.payload).toMatchObject({ network: PRODUCTION, transaction: settled.transaction, resourceUrl: path });
    expect(getAddress(verified.payload.payer)).toBe(production.address);

    // payment identifier: a new authorization with the same id for the same request charges nothing
    const client = x402Client.fromConfig({ schemes: [{ network: 'eip155:*', client: new ExactEvmScheme(production) }], spendControls: false });
    const id = generatePaymentId();
    const signed = async () => {
      const required = decodeBase64Json<any>((await post({ 'x-wallet-address': production.address })).headers.get('payment-required'));
      appendPaymentIdentifierToExtensions(required.extensions, id);
      return encodePaymentSignatureHeader(await client.createPaymentPayload(required));
    };
    const first = await post({ 'payment-signature': await signed() });
    expect(first.status).toBe(200);
    const afterFirst = await usdc(PRODUCTION, production.address);
    expect(afterFirst).toBe(before - 2n * price);
    const retry = await post({ 'payment-signature': await signed() });
    expect(retry.status).toBe(200);
    expect(await json(retry)).toEqual(await json(first));
    expect(retry.headers.get('payment-response')).toBe(first.headers.get('payment-response'));
    expect(await usdc(PRODUCTION, production.address)).toBe(afterFirst);
  });
});

describe('prices on the devnet', () => {
  it('EURC and USDC are priced through the Chainlink adapter reading the mock feeds, beside the fixed prices', async () => {
    const body = await json(await fetch(`${service.url}/api/prices`));
    const eurc = body.data.prices.find((p: any) => p.asset === 'EURC' && p.network === TESTNET);
    expect(eurc).toMatchObject({ usdPrice: '1.08', provider: 'median(chainlink,fixed)' });
    expect(eurc.answers.map((a: any) => [a.provider, a.status, a.usdPrice])).toEqual([
      ['chainlink', 'ok', '1.08'],
      ['fixed', 'ok', '1.08'],
    ]);
    expect(body.data.providers.map((p: any) => p.name)).toEqual(['chainlink', 'fixed']);
  });
});

describe('recovery', () => {
  it('a crash after settlement and before apply is applied exactly once by the reconciler', async () => {
    const wallet = devAccount(6);
    const tokenId = (await json(await call('/tokens', { name: 'Crash', symbol: 'CRASH' }, wallet))).data.tokenId;
    crashAfterSettle = true;
    const res = await call('/entrypoints/token_buy_usd', { tokenId, usdAmount: '3' }, wallet);
    expect(res.status).toBe(500);
    const payment = [...uow.db.payments.values()].find((p) => p.payer === wallet.address && p.amount === parseUsd('3'))!;
    expect(payment.state).toBe('SETTLED');
    expect(uow.db.trades.filter((t) => t.paymentId === payment.paymentId)).toHaveLength(0);

    clock.offsetMs += 31_000; // past the reconciler's grace period
    await service.runWorkers();
    await service.runWorkers();
    expect(uow.db.payments.get(payment.paymentId)!.state).toBe('APPLIED');
    expect(uow.db.trades.filter((t) => t.paymentId === payment.paymentId)).toHaveLength(1);
    const status = await json(await fetch(`${service.url}/api/payments/${payment.paymentId}`));
    expect(status.data).toMatchObject({ state: 'APPLIED', settlementTx: payment.settlementTx });
  });

  it('a settlement timeout answers 202 pending; the reconciler finds the transfer on chain and applies it', async () => {
    const wallet = devAccount(7);
    const tokenId = (await json(await call('/tokens', { name: 'Slow', symbol: 'SLOW' }, wallet))).data.tokenId;
    timeoutNextSettle = true;
    const res = await call('/entrypoints/token_buy_usd', { tokenId, usdAmount: '1' }, wallet);
    expect(res.status).toBe(202);
    const { paymentId } = (await json(res)).data;
    expect(uow.db.payments.get(paymentId)!.state).toBe('SETTLING');
    clock.offsetMs += 31_000;
    await service.runWorkers();
    const payment = uow.db.payments.get(paymentId)!;
    expect(payment.state).toBe('APPLIED');
    expect(payment.settlementTx).toMatch(/^0x[0-9a-f]{64}$/);
    expect(uow.db.trades.filter((t) => t.paymentId === paymentId)).toHaveLength(1);
  });

  it('a payout worker crash between recording and broadcasting never pays twice', async () => {
    const wallet = devAccount(8);
    const tokenId = (await json(await call('/tokens', { name: 'Payout', symbol: 'POUT' }, wallet))).data.tokenId;
    await call('/entrypoints/token_buy_usd', { tokenId, usdAmount: '10' }, wallet);
    await drainWorkers();
    const sell = (await json(await call('/entrypoints/token_sell', await signedSellBody(service.url, wallet, tokenId, '100000'), wallet))).data;
    const before = await usdc(TESTNET, wallet.address);
    crashAfterPayoutRecord = true;
    await service.runWorkers(); // records SENT, then "crashes" before broadcasting
    const recorded = uow.db.payouts.get(sell.payout.payoutId)!;
    expect(recorded.state).toBe('SENT');
    expect(await usdc(TESTNET, wallet.address)).toBe(before);
    await drainWorkers(); // the same signed transfer is broadcast, then confirmed
    const payout = uow.db.payouts.get(sell.payout.payoutId)!;
    expect(payout.state).toBe('CONFIRMED');
    expect(payout.txHash).toBe(recorded.txHash);
    expect(await usdc(TESTNET, wallet.address)).toBe(before + parseUsd(sell.usdReceived));
  });

  it('sending "failed" without a hash while the node took the transaction: 202, then applied from the chain', async () => {
    const wallet = devAccount(6);
    const tokenId = (await json(await call('/tokens', { name: 'Lost', symbol: 'LOST' }, wallet))).data.tokenId;
    const before = await usdc(TESTNET, wallet.address);
    loseNextSettleHash = true;
    const res = await call('/entrypoints/token_buy_usd', { tokenId, usdAmount: '2' }, wallet);
    expect(res.status).toBe(202);
    const { paymentId } = (await json(res)).data;
    expect(uow.db.payments.get(paymentId)!.state).toBe('SETTLING');
    expect(await usdc(TESTNET, wallet.address)).toBe(before - parseUsd('2')); // the money did move
    clock.offsetMs += 31_000;
    await service.runWorkers();
    expect(uow.db.payments.get(paymentId)!.state).toBe('APPLIED');
    expect(uow.db.trades.filter((t) => t.paymentId === paymentId)).toHaveLength(1);
  });
});

describe('a chain that stops mining (#11.1): the payer ends with the trade or the money, never neither', () => {
  const anvil = () => createTestClient({ mode: 'anvil', transport: http(service.devnet!.chains[TESTNET].rpcUrl) });

  it('mined late: 202 pending while the chain is stalled, then applied once the block comes', async () => {
    const wallet = devAccount(9);
    const created = await json(await call('/tokens', { name: 'Stall', symbol: 'STALL' }, wallet));
    expect(created.success, JSON.stringify(created)).toBe(true);
    const tokenId = created.data.tokenId;
    const before = await usdc(TESTNET, wallet.address);
    await anvil().setAutomine(false);
    let paymentId: string;
    try {
      const res = await call('/entrypoints/token_buy_usd', { tokenId, usdAmount: '3' }, wallet);
      expect(res.status, JSON.stringify(await res.clone().json())).toBe(202);
      paymentId = (await json(res)).data.paymentId;
      expect(uow.db.payments.get(paymentId)!.state).toBe('SETTLING');
      // The reconciler does not give up on an authorization that can still be mined.
      clock.offsetMs += 31_000;
      await service.runWorkers();
      expect(uow.db.payments.get(paymentId)!.state).toBe('SETTLING');
      expect(await usdc(TESTNET, wallet.address)).toBe(before);
    } finally {
      await anvil().mine({ blocks: 1 });
      await anvil().setAutomine(true);
    }
    expect(await usdc(TESTNET, wallet.address)).toBe(before - parseUsd('3'));
    await service.runWorkers();
    const payment = uow.db.payments.get(paymentId)!;
    expect(payment.state).toBe('APPLIED');
    expect(payment.settlementTx).toMatch(/^0x[0-9a-f]{64}$/);
    expect(uow.db.trades.filter((t) => t.paymentId === paymentId)).toMatchObject([{ usdAmount: parseUsd('3') }]);
    const status = await json(await fetch(`${service.url}/api/payments/${paymentId}`));
    expect(status.data.state).toBe('APPLIED');
  });

  it('never mined: FAILED only once a block past validBefore shows the authorization unused; nothing charged', async () => {
    const { decodeBase64Json, signPayment } = await import('../support/x402-client.js');
    const wallet = devAccount(9);
    const tokenId = (await json(await call('/tokens', { name: 'Never', symbol: 'NEVER' }, wallet))).data.tokenId;
    const body = { tokenId, usdAmount: '3' };
    const challenge = await call('/entrypoints/token_buy_usd', body, wallet, fetch);
    const required = decodeBase64Json<any>(challenge.headers.get('payment-required'));
    // A short authorization window (the client sets validBefore = now + maxTimeoutSeconds).
    required.accepts[0].maxTimeoutSeconds = 10;
    const signature = await signPayment(wallet, required);
    const validBefore = BigInt(decodeBase64Json<any>(signature).payload.authorization.validBefore);
    const before = await usdc(TESTNET, wallet.address);
    await anvil().setAutomine(false);
    let paymentId: string;
    try {
      const res = await fetch(`${service.url}/entrypoints/token_buy_usd`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'payment-signature': signature },
        body: JSON.stringify(body),
      });
      expect(res.status).toBe(202);
      paymentId = (await json(res)).data.paymentId;
      // The node loses the transaction; nobody will mine it.
      await anvil().request({ method: 'anvil_dropAllTransactions' as never, params: [] as never });
      clock.offsetMs += 31_000;
      await service.runWorkers();
      expect(uow.db.payments.get(paymentId)!.state).toBe('SETTLING'); // still usable: it may come back
      // Real time must pass: the chain stamps its blocks with the wall clock.
      await waitFor('the wall clock past validBefore', () => BigInt(Math.floor(Date.now() / 1000)) > validBefore, { stepMs: 250 });
      await anvil().mine({ blocks: 1 }); // a block at or past validBefore
    } finally {
      await anvil().setAutomine(true);
    }
    await service.runWorkers();
    expect(uow.db.payments.get(paymentId)!.state).toBe('FAILED');
    expect(await usdc(TESTNET, wallet.address)).toBe(before);
    const replay = await fetch(`${service.url}/entrypoints/token_buy_usd`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'payment-signature': signature },
      body: JSON.stringify(body),
    });
    expect(replay.status).toBe(402);
    expect((await json(replay)).error.details.reason).toBe('settlement_failed');
  }, 60_000); // ten seconds of it are the authorization window passing
});
