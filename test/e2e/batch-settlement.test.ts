/**
 * Pay once, call many (docs/payments.md): the official @x402/fetch client with @x402/evm's
 * batch-settlement scheme pays a run of paid calls from one deposit, through a listening service
 * over the fake chain's batch-settlement contract; the claims take exactly what was charged, and
 * the cooperative refund gives back the rest: the payer lost exactly the prices, the treasury
 * gained them.
 */
import { encodePaymentSignatureHeader } from '@x402/core/http';
import { BatchSettlementEvmScheme, computeChannelId, signVoucher } from '@x402/evm/batch-settlement/client';
import { wrapFetchWithPaymentFromConfig } from '@x402/fetch';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeFacilitator } from '../../src/adapters/facilitator/fake/fake-facilitator.js';
import type { RunningService } from '../../src/bootstrap/compose.js';
import { NETWORKS, PRODUCTION, TESTNET } from '../../src/domain/network.js';
import { decodeBase64Json, devAccount, payingFetch } from '../support/x402-client.js';
import { json, ShiftableClock, startTestService } from '../support/service.js';

const TREASURY = '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266';
const USDC = NETWORKS[TESTNET].assets.USDC.address;
const payer = devAccount(7);
const creator = devAccount(8);

let service: RunningService;
let facilitator: FakeFacilitator;
let clock: ShiftableClock;
let tokenId: string;
let otherTokenId: string;

beforeAll(async () => {
  clock = new ShiftableClock();
  facilitator = new FakeFacilitator({ clock, defaultBalance: 10_000_000_000n });
  service = await startTestService({ ports: { clock, facilitator } });
  const res = await post('/tokens', { name: 'Channel', symbol: 'CHAN' }, { 'x-wallet-address': creator.address }, payingFetch(creator));
  expect(res.status).toBe(201);
  tokenId = (await json(res)).data.tokenId;
  const other = await post('/tokens', { name: 'Other', symbol: 'OTHR' }, { 'x-wallet-address': creator.address }, payingFetch(creator));
  otherTokenId = (await json(other)).data.tokenId;
});
afterAll(async () => {
  await service.stop();
});

function post(path: string, body: unknown, headers: Record<string, string> = {}, f: typeof fetch = fetch) {
  return f(`${service.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
}

function batchClient() {
  // Fifteen calls' worth at a time: 20 calls take two deposits and leave five calls' worth to refund.
  const scheme = new BatchSettlementEvmScheme(payer, { depositStrategy: (c) => BigInt(c.requestAmount) * 15n });
  const paying = wrapFetchWithPaymentFromConfig(fetch, { schemes: [{ network: 'eip155:*', client: scheme }], spendControls: false });
  return { scheme, paying };
}

describe('batch-settlement: pay once, call many', () => {
  it('every 402 offers batch-settlement beside exact, exact first', async () => {
    const res = await post('/entrypoints/token_info', { tokenId }, { 'x-wallet-address': payer.address });
    expect(res.status).toBe(402);
    const accepts = decodeBase64Json<any>(res.headers.get('payment-required')).accepts as { scheme: string; extra: Record<string, unknown> }[];
    expect(accepts[0]!.scheme).toBe('exact');
    const batch = accepts.filter((a) => a.scheme === 'batch-settlement');
    expect(batch.length).toBeGreaterThan(0);
    // The scheme's defaults left out (deposits by EIP-3009, a 900 s withdraw delay): the header's size.
    expect(batch[0]!.extra).toEqual({ name: 'USDC', version: '2', receiverAuthorizer: TREASURY, minDeposit: '10000' });
  });

  it('20 paid calls move the payer’s USDC twice; the claim and the refund leave it short of exactly the prices', async () => {
    const before = facilitator.balanceOf(TESTNET, payer.address);
    const treasuryBefore = facilitator.balanceOf(TESTNET, TREASURY);
    const { scheme, paying } = batchClient();
    let charged = 0n;
    for (let i = 0; i < 20; i++) {
      const res = await post('/entrypoints/token_info', { tokenId }, { 'x-wallet-address': payer.address }, paying);
      expect(res.status, await res.clone().text()).toBe(200);
      const settlement = decodeBase64Json<any>(res.headers.get('payment-response'));
      expect(settlement.success).toBe(true);
      charged += BigInt(settlement.extra.chargedAmount);
      expect(settlement.extra.channelState.chargedCumulativeAmount).toBe(charged.toString());
    }
    // Two deposits: the payer's only movements until the refund.
    expect(facilitator.batch.transactions.filter((t) => t.kind === 'deposit')).toHaveLength(2);
    const deposited = before - facilitator.balanceOf(TESTNET, payer.address);
    expect(deposited).toBeGreaterThan(charged);

    // The claim takes exactly the charges, the settle moves them to the treasury.
    await service.runWorkers(); // not quiet a minute yet: nothing claimed
    expect(facilitator.batch.transactions.filter((t) => t.kind === 'claim')).toHaveLength(0);
    clock.offsetMs += 61_000;
    await service.runWorkers();
    expect(facilitator.batch.transactions.filter((t) => t.kind === 'claim')).toHaveLength(1);
    expect(facilitator.balanceOf(TESTNET, TREASURY) - treasuryBefore).toBe(charged);

    const refund = await scheme.refund(`${service.url}/entrypoints/token_info?network=${TESTNET}&asset=USDC`);
    expect(refund.success).toBe(true);
    expect(before - facilitator.balanceOf(TESTNET, payer.address)).toBe(charged);
    expect(facilitator.balanceOf(TESTNET, TREASURY) - treasuryBefore).toBe(charged);
  });
});

describe('batch-settlement: vouchers that cannot pay', () => {
  const wallet = devAccount(9);

  /** The testnet USDC batch-settlement offer of a fresh 402 of token_info, and its resource. */
  async function offer() {
    const res = await post('/entrypoints/token_info', { tokenId }, { 'x-wallet-address': wallet.address });
    const required = decodeBase64Json<any>(res.headers.get('payment-required'));
    const accepted = required.accepts.find((a: any) => a.scheme === 'batch-settlement' && a.asset.toLowerCase() === USDC.toLowerCase());
    return { accepted, resource: required.resource };
  }

  /** A voucher payment of `max` on `wallet`'s channel (or the config given), signed by `signer`. */
  async function voucher(max: bigint, o: { config?: any; signer?: typeof wallet; channelId?: string; accepted?: any } = {}) {
    const { accepted, resource } = await offer();
    const a = o.accepted ?? accepted;
    const config = o.config ?? new BatchSettlementEvmScheme(wallet).buildChannelConfig(a);
    const channelId = o.channelId ?? computeChannelId(config, TESTNET);
    const signed = await signVoucher(o.signer ?? wallet, channelId as `0x${string}`, max.toString(), TESTNET);
    return encodePaymentSignatureHeader({ x402Version: 2, accepted: a, resource, payload: { type: 'voucher', channelConfig: config, voucher: signed } } as never);
  }

  async function paidWith(header: string) {
    const res = await post('/entrypoints/token_info', { tokenId }, { 'payment-signature': header });
    return { status: res.status, body: await json(res), required: res.headers.get('payment-required') ? decodeBase64Json<any>(res.headers.get('payment-required')) : null };
  }

  const channelOf = async () => {
    const { accepted } = await offer();
    const id = computeChannelId(new BatchSettlementEvmScheme(wallet).buildChannelConfig(accepted), TESTNET);
    return (await service.application.deps.uow.run((s) => s.channels.get(id)))!;
  };

  beforeAll(async () => {
    // A channel of ten calls' worth, one call charged.
    const { paying } = ((scheme) => ({ paying: wrapFetchWithPaymentFromConfig(fetch, { schemes: [{ network: 'eip155:*', client: scheme }], spendControls: false }) }))(
      new BatchSettlementEvmScheme(wallet),
    );
    expect((await post('/entrypoints/token_info', { tokenId }, { 'x-wallet-address': wallet.address }, paying)).status).toBe(200);
  });

  it('a voucher behind the books gets the corrective 402 with the channel’s state and last voucher', async () => {
    const channel = await channelOf();
    const answer = await paidWith(await voucher(channel.charged + 500n)); // short of the price
    expect(answer.status).toBe(402);
    expect(answer.body.error.details.reason).toBe('invalid_batch_settlement_evm_cumulative_amount_mismatch');
    expect(answer.required.error).toBe('invalid_batch_settlement_evm_cumulative_amount_mismatch');
    const batch = answer.required.accepts.find((a: any) => a.scheme === 'batch-settlement');
    expect(batch.extra.channelState).toMatchObject({ chargedCumulativeAmount: channel.charged.toString(), balance: channel.balance.toString() });
    expect(batch.extra.voucherState).toEqual({ signedMaxClaimable: channel.signedMax.toString(), signature: channel.signature });
  });

  it('a voucher over the deposit, a bad signature, another channel, another receiver: 402 with the reason, nothing charged', async () => {
    const before = await channelOf();
    const { accepted } = await offer();
    const config = new BatchSettlementEvmScheme(wallet).buildChannelConfig(accepted);
    const cases: [string, string][] = [
      ['invalid_batch_settlement_evm_cumulative_exceeds_balance', await voucher(before.balance + 1n)],
      ['invalid_batch_settlement_evm_voucher_signature', await voucher(before.charged + 1_000n, { signer: devAccount(6) })],
      ['invalid_batch_settlement_evm_channel_id_mismatch', await voucher(before.charged + 1_000n, { channelId: `0x${'ab'.repeat(32)}` })],
      ['invalid_batch_settlement_evm_receiver_mismatch', await voucher(before.charged + 1_000n, { config: { ...config, receiver: devAccount(5).address } })],
      ['invalid_batch_settlement_evm_receiver_authorizer_mismatch', await voucher(before.charged + 1_000n, { config: { ...config, receiverAuthorizer: devAccount(5).address } })],
    ];
    for (const [reason, header] of cases) {
      const answer = await paidWith(header);
      expect(answer.status, reason).toBe(402);
      expect(answer.body.error.details.reason, reason).toBe(reason);
    }
    expect((await channelOf()).charged).toBe(before.charged);
  });

  it('the same voucher again is the same payment; for another request it pays nothing twice', async () => {
    const before = await channelOf();
    const header = await voucher(before.charged + 1_000n);
    const first = await paidWith(header);
    expect(first.status).toBe(200);
    const again = await paidWith(header);
    expect(again.status).toBe(200);
    expect(again.body).toEqual(first.body);
    expect((await channelOf()).charged).toBe(before.charged + 1_000n);
    // The same voucher for another request: it covers nothing more.
    const other = await post('/entrypoints/token_info', { tokenId: otherTokenId }, { 'payment-signature': header });
    expect(other.status).toBe(402);
    expect((await json(other)).error.details.reason).toBe('invalid_batch_settlement_evm_cumulative_amount_mismatch');
    expect((await channelOf()).charged).toBe(before.charged + 1_000n);
  });

  it('a deposit sent again (a retry of a request that died after it) moves nothing twice and charges nothing twice', async () => {
    const wallet6 = devAccount(6);
    const sent: string[] = [];
    const capturing: typeof fetch = async (input, init) => {
      const header = (input instanceof Request ? input.headers : new Headers(init?.headers)).get('payment-signature');
      if (header) sent.push(header);
      return fetch(input, init);
    };
    const paying = wrapFetchWithPaymentFromConfig(capturing, { schemes: [{ network: 'eip155:*', client: new BatchSettlementEvmScheme(wallet6) }], spendControls: false });
    expect((await post('/entrypoints/token_info', { tokenId }, { 'x-wallet-address': wallet6.address }, paying)).status).toBe(200);
    const deposits = facilitator.batch.transactions.filter((t) => t.kind === 'deposit').length;
    const balance = facilitator.balanceOf(TESTNET, wallet6.address);
    // The same deposit and voucher for another request: the channel holds the deposit already; the voucher covers nothing more.
    const again = await post('/entrypoints/token_info', { tokenId: otherTokenId }, { 'payment-signature': sent[0]! });
    expect(again.status).toBe(402);
    expect((await json(again)).error.details.reason).toBe('invalid_batch_settlement_evm_cumulative_amount_mismatch');
    expect(facilitator.batch.transactions.filter((t) => t.kind === 'deposit')).toHaveLength(deposits);
    expect(facilitator.balanceOf(TESTNET, wallet6.address)).toBe(balance);
  });

  it('two vouchers racing on one channel: one is charged, the other gets the corrective 402', async () => {
    const before = await channelOf();
    const [a, b] = [await voucher(before.charged + 1_000n), await voucher(before.charged + 1_000n + 0n)];
    const answers = await Promise.all([paidWith(a), paidWith(b)]);
    // The same voucher twice is one payment: both answered as it was.
    expect(answers.map((x) => x.status)).toEqual([200, 200]);
    const c = await voucher(before.charged + 2_000n);
    const d = await voucher(before.charged + 2_000n + 1n);
    const raced = await Promise.all([paidWith(c), paidWith(d)]);
    expect(raced.map((x) => x.status).sort()).toEqual([200, 402]);
    expect((await channelOf()).charged).toBe(before.charged + 2_000n);
  });
});

describe('batch-settlement: a claim whose answer is lost', () => {
  it('a stalled claim delays the claim, never a call; the next passes settle it from the chain, once', async () => {
    const wallet = devAccount(5);
    const scheme = new BatchSettlementEvmScheme(wallet);
    const paying = wrapFetchWithPaymentFromConfig(fetch, { schemes: [{ network: 'eip155:*', client: scheme }], spendControls: false });
    const call = () => post('/entrypoints/token_info', { tokenId }, { 'x-wallet-address': wallet.address }, paying);
    for (let i = 0; i < 3; i++) expect((await call()).status).toBe(200);
    const treasuryBefore = facilitator.balanceOf(TESTNET, TREASURY);
    const claims = () => facilitator.batch.transactions.filter((t) => t.kind === 'claim').length;
    const claimsBefore = claims();
    // The claim is sent and mined, but its answer never comes.
    facilitator.timeoutNextSettle({ transfers: true });
    clock.offsetMs += 61_000;
    await service.runWorkers();
    expect(claims() - claimsBefore).toBe(1);
    // Calls go on meanwhile, charged as ever.
    for (let i = 0; i < 2; i++) expect((await call()).status).toBe(200);
    // A minute later the claim under way is known from the chain: recorded, settled to the treasury, never sent again.
    clock.offsetMs += 61_000;
    await service.runWorkers();
    const channels = [...(await service.application.deps.uow.run((s) => s.channels.ofPayer(wallet.address, 10)))];
    expect(channels).toHaveLength(1);
    expect(channels[0]!.claiming).toBeNull();
    // The three calls before the stall are settled; the two after are claimed by a claim of their own.
    await service.runWorkers();
    clock.offsetMs += 61_000;
    await service.runWorkers();
    const after = (await service.application.deps.uow.run((s) => s.channels.get(channels[0]!.channelId)))!;
    expect(after.claimed).toBe(after.charged);
    expect(facilitator.batch.channels.get(after.channelId)!.totalClaimed).toBe(after.charged);
    // The treasury gained at least this channel's charges (other channels of the file are claimed in the same passes).
    expect(facilitator.balanceOf(TESTNET, TREASURY) - treasuryBefore >= after.charged).toBe(true);
  });
});

describe('batch-settlement: a refund before any claim', () => {
  it('claims the channel’s charges, settles them to the treasury and pays the rest back, in the refund', async () => {
    const wallet = devAccount(4);
    const scheme = new BatchSettlementEvmScheme(wallet);
    const paying = wrapFetchWithPaymentFromConfig(fetch, { schemes: [{ network: 'eip155:*', client: scheme }], spendControls: false });
    const before = facilitator.balanceOf(PRODUCTION, wallet.address);
    const treasuryBefore = facilitator.balanceOf(PRODUCTION, TREASURY);
    for (let i = 0; i < 3; i++) expect((await post('/entrypoints/token_info', { tokenId }, { 'x-wallet-address': wallet.address }, paying)).status).toBe(200);
    expect((await scheme.refund(`${service.url}/entrypoints/token_info`)).success).toBe(true);
    expect(before - facilitator.balanceOf(PRODUCTION, wallet.address)).toBe(3_000n);
    expect(facilitator.balanceOf(PRODUCTION, TREASURY) - treasuryBefore).toBe(3_000n);
  });
});
