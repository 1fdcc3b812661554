/**
 * The x402 extensions in the live flow (docs/api.md "x402 extensions"), through a listening service over the
 * signature-checking fake facilitator, paid with the official client packages: Sign-In-With-X
 * narrows the 402 to the wallet's network and redeems token_info access, a payment identifier
 * answers a retry without a second charge, and every settlement carries a receipt that the
 * extension's own verifier checks.
 */
import { x402Client } from '@x402/core/client';
import { encodePaymentSignatureHeader } from '@x402/core/http';
import { ExactEvmScheme } from '@x402/evm';
import {
  extractOffersFromPaymentRequired,
  extractReceiptFromResponse,
  verifyOfferSignatureEIP712,
  verifyReceiptSignatureEIP712,
  type EIP712SignedOffer,
  type EIP712SignedReceipt,
} from '@x402/extensions/offer-receipt';
import { appendPaymentIdentifierToExtensions, generatePaymentId } from '@x402/extensions/payment-identifier';
import { createSIWxPayload, encodeSIWxHeader, wrapFetchWithSIWx, type SIWxExtensionInfo } from '@x402/extensions/sign-in-with-x';
import { wrapFetchWithPayment, wrapFetchWithPaymentFromConfig } from '@x402/fetch';
import { getAddress } from 'viem';
import type { PrivateKeyAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeFacilitator } from '../../src/adapters/facilitator/fake/fake-facilitator.js';
import type { RunningService } from '../../src/bootstrap/compose.js';
import { PRODUCTION, TESTNET } from '../../src/domain/network.js';
import { decodeBase64Json, devAccount, payingFetch } from '../support/x402-client.js';
import { json, ShiftableClock, startTestService } from '../support/service.js';

const TREASURY = '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266'; // anvil #0: the default key signs offers and receipts
const testnetWallet = devAccount(6);
const other = devAccount(8);
const BOTH = [PRODUCTION, TESTNET];

let service: RunningService;
let facilitator: FakeFacilitator;
let clock: ShiftableClock;
let tokenId: string;

beforeAll(async () => {
  clock = new ShiftableClock();
  facilitator = new FakeFacilitator({ clock, defaultBalance: 10_000_000_000n });
  service = await startTestService({ ports: { clock, facilitator } });
  const res = await post('/tokens', { name: 'Signed', symbol: 'SIWX' }, { 'x-wallet-address': other.address }, payingFetch(other));
  expect(res.status).toBe(201);
  tokenId = (await json(res)).data.tokenId;
});
afterAll(async () => {
  await service.stop();
});

function post(path: string, body: unknown, headers: Record<string, string> = {}, f: typeof fetch = fetch) {
  return f(`${service.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
}

const networksOf = (accepts: { network: string }[]) => [...new Set(accepts.map((a) => a.network))];

/** A fetch that remembers every response's status and 402 networks, to see what the client went through. */
function recording() {
  const seen: { status: number; networks?: string[] }[] = [];
  const f: typeof fetch = async (input, init) => {
    const res = await fetch(input, init);
    const entry: { status: number; networks?: string[] } = { status: res.status };
    // The networks offered (each offers USDC and EURC; the asset is not what these tests look at).
    if (res.status === 402) entry.networks = networksOf(decodeBase64Json<any>(res.headers.get('payment-required')).accepts);
    seen.push(entry);
    return res;
  };
  return { seen, fetch: f };
}

/** The SIWx challenge of a fresh 402 of `path`. */
async function challenge(path: string, body: unknown): Promise<{ info: SIWxExtensionInfo; supportedChains: { chainId: string; type: string }[] }> {
  const res = await post(path, body);
  expect(res.status).toBe(402);
  return decodeBase64Json<any>(res.headers.get('payment-required')).extensions['sign-in-with-x'];
}

/** A SIGN-IN-WITH-X header, signed by `account` with the official client function. */
async function proof(account: PrivateKeyAccount, path: string, body: unknown, over: { chainId?: string; info?: Partial<SIWxExtensionInfo>; url?: string } = {}) {
  const ext = await challenge(path, body);
  const info = { ...ext.info, ...over.info, chainId: over.chainId ?? ext.supportedChains[0]!.chainId, type: 'eip191' as const };
  return encodeSIWxHeader(await createSIWxPayload(info, account, over.url ?? `${service.url}${path}`));
}

const balance = (account: PrivateKeyAccount) => facilitator.balanceOf(TESTNET, account.address);

describe('Sign-In-With-X', () => {
  it('every 402 declares it, with a challenge bound to the service and the 402’s networks', async () => {
    const ext = await challenge('/entrypoints/token_info', { tokenId });
    expect(ext.info.domain).toBe(new URL(service.url).host);
    expect(ext.info.uri).toBe(`${service.url}/entrypoints/token_info`);
    expect(ext.supportedChains.map((c) => c.chainId)).toEqual(BOTH);
  });

  it('a SIWx-signed first request gets a one-network 402 and pays without a mismatch (@x402/fetch)', async () => {
    // The proof names the first chain offered (mainnet): the wallet's network is still its own (testnet).
    const header = await proof(testnetWallet, '/entrypoints/token_info', { tokenId });
    const rec = recording();
    const pay = wrapFetchWithPaymentFromConfig(rec.fetch, { schemes: [{ network: 'eip155:*', client: new ExactEvmScheme(testnetWallet) }], spendControls: false });
    const before = balance(testnetWallet);
    const res = await post('/entrypoints/token_info', { tokenId }, { 'sign-in-with-x': header }, pay);
    expect(res.status).toBe(200);
    expect(rec.seen).toEqual([{ status: 402, networks: [TESTNET] }, { status: 200 }]);
    expect(before - balance(testnetWallet)).toBe(service.application.deps.settings.prices.info);
  });

  it('wrapFetchWithSIWx under @x402/fetch: the signed retry narrows the 402, the payment follows it', async () => {
    const rec = recording();
    const client = x402Client.fromConfig({ schemes: [{ network: 'eip155:*', client: new ExactEvmScheme(other) }], spendControls: false });
    const pay = wrapFetchWithPayment(wrapFetchWithSIWx(rec.fetch, other), client);
    const res = await post('/entrypoints/token_info', { tokenId }, {}, pay);
    expect(res.status).toBe(200);
    expect(rec.seen).toEqual([{ status: 402, networks: BOTH }, { status: 402, networks: [TESTNET] }, { status: 200 }]);
  });

  it('token_info bought once is free to the same wallet for INFO_ACCESS_SECONDS, proven afresh each time', async () => {
    const before = balance(testnetWallet);
    const res = await post('/entrypoints/token_info', { tokenId }, { 'sign-in-with-x': await proof(testnetWallet, '/entrypoints/token_info', { tokenId }) });
    expect(res.status).toBe(200);
    expect((await json(res)).data).toMatchObject({ tokenId, holdersTop: expect.any(Array) });
    expect(res.headers.get('access-granted-until')).toBeTruthy();
    expect(balance(testnetWallet)).toBe(before);
    // another wallet's proof grants nothing
    const stranger = devAccount(9);
    expect((await post('/entrypoints/token_info', { tokenId }, { 'sign-in-with-x': await proof(stranger, '/entrypoints/token_info', { tokenId }) })).status).toBe(402);
    // the grant ends with INFO_ACCESS_SECONDS (300 by default)
    clock.offsetMs += 301_000;
    try {
      const late = await post('/entrypoints/token_info', { tokenId }, { 'sign-in-with-x': await proof(testnetWallet, '/entrypoints/token_info', { tokenId }) });
      expect(late.status).toBe(402);
      expect(networksOf(decodeBase64Json<any>(late.headers.get('payment-required')).accepts)).toEqual([TESTNET]);
    } finally {
      clock.offsetMs -= 301_000;
    }
  });

  it('a replayed, expired, wrong-domain or wrong-chain proof gets the plain 402 saying why, and never blocks paying', async () => {
    const path = '/entrypoints/token_info';
    const used = await proof(testnetWallet, path, { tokenId });
    expect((await post(path, { tokenId }, { 'sign-in-with-x': used })).status).toBe(200); // granted, and spent
    const old = new Date(Date.now() - 3_600_000).toISOString();
    const cases: [string, string][] = [
      ['replayed', used],
      ['expired', await proof(testnetWallet, path, { tokenId }, { info: { issuedAt: old, expirationTime: new Date(Date.now() - 60_000).toISOString() } })],
      ['wrong_domain', await proof(testnetWallet, path, { tokenId }, { info: { domain: 'evil.example', uri: 'https://evil.example/entrypoints/token_info' }, url: 'https://evil.example/entrypoints/token_info' })],
      ['wrong_chain', await proof(testnetWallet, path, { tokenId }, { chainId: 'eip155:1' })],
    ];
    for (const [reason, header] of cases) {
      const res = await post(path, { tokenId }, { 'sign-in-with-x': header });
      expect(res.status, reason).toBe(402);
      const details = (await json(res)).error.details;
      expect(details.siwx, reason).toMatchObject({ reason, code: expect.any(String), message: expect.any(String) });
      expect(networksOf(details.accepts), reason).toEqual(BOTH);
      // the official client still pays, on the network it is told (X-Wallet-Address narrows it)
      const paid = await post(path, { tokenId }, { 'sign-in-with-x': header, 'x-wallet-address': other.address }, payingFetch(other));
      expect(paid.status, reason).toBe(200);
    }
  });

  it('GET /positions may omit wallet when a valid proof is sent; a bad proof says why', async () => {
    const path = '/entrypoints/token_info';
    const res = await fetch(`${service.url}/positions`, { headers: { 'sign-in-with-x': await proof(other, path, { tokenId }) } });
    expect(res.status).toBe(200);
    // the wallet that created the token, on its network by its history
    expect((await json(res)).data).toMatchObject({ wallet: getAddress(other.address), network: TESTNET });
    const none = await fetch(`${service.url}/positions`);
    expect(none.status).toBe(400);
    const bad = await fetch(`${service.url}/positions`, { headers: { 'sign-in-with-x': 'garbage' } });
    expect(bad.status).toBe(400);
    expect((await json(bad)).error.details.siwx).toMatchObject({ reason: 'malformed' });
  });
});

describe('payment identifier', () => {
  const client = x402Client.fromConfig({ schemes: [{ network: 'eip155:*', client: new ExactEvmScheme(testnetWallet) }], spendControls: false });

  /** A PAYMENT-SIGNATURE for `body` carrying the payment identifier `id`, built by the official client. */
  async function paymentWithId(path: string, body: unknown, id: string): Promise<string> {
    const unpaid = await post(path, body, { 'x-wallet-address': testnetWallet.address });
    const required = decodeBase64Json<any>(unpaid.headers.get('payment-required'));
    expect(required.extensions['payment-identifier']).toMatchObject({ info: { required: false } });
    appendPaymentIdentifierToExtensions(required.extensions, id);
    return encodePaymentSignatureHeader(await client.createPaymentPayload(required));
  }

  it('the same id for the same request answers again without a second charge; for another request, 409', async () => {
    const id = generatePaymentId();
    const body = { tokenId, usdAmount: '2' };
    const before = balance(testnetWallet);
    const first = await post('/entrypoints/token_buy_usd', body, { 'payment-signature': await paymentWithId('/entrypoints/token_buy_usd', body, id) });
    expect(first.status).toBe(200);
    const answer = await json(first);
    const afterFirst = balance(testnetWallet);
    expect(before - afterFirst).toBe(2_000_000n);
    // The payment shows the id it was made with.
    expect((await json(await fetch(`${service.url}/api/payments/${answer.data.payment.paymentId}`))).data.paymentIdentifier).toBe(id);

    // A retry signs a new authorization (a new nonce) with the same id: the stored answer, no charge.
    const again = await post('/entrypoints/token_buy_usd', body, { 'payment-signature': await paymentWithId('/entrypoints/token_buy_usd', body, id) });
    expect(again.status).toBe(200);
    expect(await json(again)).toEqual(answer);
    expect(balance(testnetWallet)).toBe(afterFirst);

    const other = { tokenId, usdAmount: '3' };
    const conflict = await post('/entrypoints/token_buy_usd', other, { 'payment-signature': await paymentWithId('/entrypoints/token_buy_usd', other, id) });
    expect(conflict.status).toBe(409);
    expect((await json(conflict)).error).toMatchObject({ code: 'PAYMENT_ALREADY_USED', details: { paymentId: answer.data.payment.paymentId } });
    expect(balance(testnetWallet)).toBe(afterFirst);
  });

  it('the documented recipe (an onBeforePaymentCreation hook under @x402/fetch): the retried operation is charged once', async () => {
    const id = generatePaymentId();
    const hooked = x402Client.fromConfig({ schemes: [{ network: 'eip155:*', client: new ExactEvmScheme(testnetWallet) }], spendControls: false });
    hooked.onBeforePaymentCreation(async ({ paymentRequired }) => {
      appendPaymentIdentifierToExtensions((paymentRequired.extensions ??= {}), id);
    });
    const pay = wrapFetchWithPayment(fetch, hooked);
    const body = { tokenId, usdAmount: '1.5' };
    const before = balance(testnetWallet);
    const first = await post('/entrypoints/token_buy_usd', body, { 'x-wallet-address': testnetWallet.address }, pay);
    const again = await post('/entrypoints/token_buy_usd', body, { 'x-wallet-address': testnetWallet.address }, pay);
    expect([first.status, again.status]).toEqual([200, 200]);
    expect(await json(again)).toEqual(await json(first));
    expect(before - balance(testnetWallet)).toBe(1_500_000n);
  });

  it('of concurrent requests with one id, exactly one is charged', async () => {
    const id = generatePaymentId();
    const body = { tokenId, usdAmount: '1' };
    const signatures = await Promise.all([0, 1, 2].map(() => paymentWithId('/entrypoints/token_buy_usd', body, id)));
    const before = balance(testnetWallet);
    const answers = await Promise.all(signatures.map((s) => post('/entrypoints/token_buy_usd', body, { 'payment-signature': s })));
    expect(answers.map((r) => r.status).sort()).toEqual([200, 200, 200]);
    expect(before - balance(testnetWallet)).toBe(1_000_000n);
  });

  it('a settlement timeout: the retry with the id is not charged, answered 202 until the reconciler applies, then the trade', async () => {
    const id = generatePaymentId();
    const body = { tokenId, usdAmount: '1.25' };
    const before = balance(testnetWallet);
    facilitator.timeoutNextSettle(); // the transfer happens, the answer is lost
    const first = await post('/entrypoints/token_buy_usd', body, { 'payment-signature': await paymentWithId('/entrypoints/token_buy_usd', body, id) });
    expect(first.status).toBe(202);
    const paymentId = (await json(first)).data.paymentId;
    const retry = await post('/entrypoints/token_buy_usd', body, { 'payment-signature': await paymentWithId('/entrypoints/token_buy_usd', body, id) });
    expect(retry.status).toBe(202);
    expect((await json(retry)).data.paymentId).toBe(paymentId);
    expect(before - balance(testnetWallet)).toBe(1_250_000n);
    clock.offsetMs += 60_000; // past the reconciler's grace
    try {
      await service.reconciler.runOnce();
    } finally {
      clock.offsetMs -= 60_000;
    }
    const late = await post('/entrypoints/token_buy_usd', body, { 'payment-signature': await paymentWithId('/entrypoints/token_buy_usd', body, id) });
    expect(late.status).toBe(200);
    expect((await json(late)).data.payment.paymentId).toBe(paymentId);
    expect(before - balance(testnetWallet)).toBe(1_250_000n);
    // Finished by the reconciler, receipted as in its request: for the URL its 402 named.
    const view = await json(await fetch(`${service.url}/api/payments/${paymentId}`));
    expect(view.data.paymentIdentifier).toBe(id);
    const { signer, payload } = await verifyReceiptSignatureEIP712(view.data.receipt as EIP712SignedReceipt);
    expect(getAddress(signer)).toBe(TREASURY);
    expect(payload).toMatchObject({ network: TESTNET, resourceUrl: `${service.url}/entrypoints/token_buy_usd` });
  });

  it('a malformed id is no id: the request pays as any other', async () => {
    const body = { tokenId, usdAmount: '1' };
    const unpaid = await post('/entrypoints/token_buy_usd', body, { 'x-wallet-address': testnetWallet.address });
    const required = decodeBase64Json<any>(unpaid.headers.get('payment-required'));
    const payload = await client.createPaymentPayload(required);
    const signature = encodePaymentSignatureHeader({ ...payload, extensions: { ...payload.extensions, 'payment-identifier': { info: { required: false, id: 'short' } } } });
    const before = balance(testnetWallet);
    expect((await post('/entrypoints/token_buy_usd', body, { 'payment-signature': signature })).status).toBe(200);
    expect(before - balance(testnetWallet)).toBe(1_000_000n);
  });
});

describe('signed offers and receipts', () => {
  it('the 402’s offers are signed by the service, one per accepted requirement (in its body: the header stays small)', async () => {
    const res = await post('/entrypoints/token_info', { tokenId });
    expect(decodeBase64Json<any>(res.headers.get('payment-required')).extensions['offer-receipt']).toBeUndefined();
    const required = (await json(res)).error.details;
    const offers = extractOffersFromPaymentRequired(required);
    expect(offers).toHaveLength(required.accepts.length);
    for (const offer of offers) {
      const { signer, payload } = await verifyOfferSignatureEIP712(offer as EIP712SignedOffer);
      expect(getAddress(signer)).toBe(TREASURY);
      expect(payload.resourceUrl).toBe(`${service.url}/entrypoints/token_info`);
    }
  });

  it('a settlement’s receipt verifies with the extension’s verifier, is what GET /api/payments/:id shows, and fails after one byte changes', async () => {
    const res = await post('/entrypoints/token_buy_usd', { tokenId, usdAmount: '1' }, { 'x-wallet-address': testnetWallet.address }, payingFetch(testnetWallet));
    expect(res.status).toBe(200);
    const receipt = extractReceiptFromResponse(res) as EIP712SignedReceipt;
    expect(receipt).toBeDefined();
    const { signer, payload } = await verifyReceiptSignatureEIP712(receipt);
    expect(getAddress(signer)).toBe(TREASURY);
    expect(getAddress(payload.payer)).toBe(getAddress(testnetWallet.address));
    expect(payload).toMatchObject({ network: TESTNET, resourceUrl: `${service.url}/entrypoints/token_buy_usd` });

    const paymentId = (await json(res)).data.payment.paymentId;
    const view = await json(await fetch(`${service.url}/api/payments/${paymentId}`));
    expect(view.data.receipt).toEqual(receipt);
    expect(view.data.paymentIdentifier).toBeNull(); // this client gave none

    // One byte of the payload or of the signature changed: it no longer verifies as the service's.
    const flip = (hex: string, at: number) => hex.slice(0, at) + (hex[at] === '0' ? '1' : '0') + hex.slice(at + 1);
    const tampered: EIP712SignedReceipt[] = [
      { ...receipt, payload: { ...receipt.payload, transaction: flip(receipt.payload.transaction, 10) } },
      { ...receipt, signature: flip(receipt.signature, 20) as `0x${string}` },
    ];
    for (const t of tampered) {
      const recovered = await verifyReceiptSignatureEIP712(t).then((r) => getAddress(r.signer)).catch(() => null);
      expect(recovered).not.toBe(TREASURY);
    }
  });
});

describe('a signer that fails', () => {
  it('costs the offers and the receipt, never the 402 or the payment', async () => {
    const s = await startTestService({
      ports: {
        receiptSigner: {
          signer: TREASURY,
          signOffers: () => Promise.reject(new Error('HSM unreachable')),
          signReceipt: () => Promise.reject(new Error('HSM unreachable')),
        },
      },
    });
    try {
      const url = `${s.url}/tokens`;
      const init = { method: 'POST', headers: { 'content-type': 'application/json', 'x-wallet-address': other.address }, body: JSON.stringify({ name: 'NoSig', symbol: 'NSIG' }) };
      const unpaid = await fetch(url, init);
      expect(unpaid.status).toBe(402);
      const extensions = (await json(unpaid)).error.details.extensions;
      // No offers (the signer failed); no Sign-In-With-X challenge either: the wallet named itself (decision 0052).
      expect(Object.keys(extensions).sort()).toEqual(['bazaar', 'payment-identifier']);
      const paid = await payingFetch(other)(url, init);
      expect(paid.status).toBe(201);
      expect(extractReceiptFromResponse(paid)).toBeUndefined();
    } finally {
      await s.stop();
    }
  });
});
