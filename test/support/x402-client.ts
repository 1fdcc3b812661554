/** Paying as a real x402 client does: the official @x402/fetch wrapper and @x402/evm signer. */
import { encodePaymentSignatureHeader } from '@x402/core/http';
import { ExactEvmScheme } from '@x402/evm';
import { wrapFetchWithPaymentFromConfig, x402Client, type PaymentRequired, type SelectPaymentRequirements } from '@x402/fetch';
import { DEFAULT_SETTINGS } from '../../src/app/kit/default-settings.js';
import { requirementsFor, X402_VERSION, type PaymentRequiredObject } from '../../src/app/payments/requirements.js';
import { NETWORKS, type Network } from '../../src/domain/network.js';
import type { ResourceInfo } from '../../src/ports/facilitator.js';
import { toHex } from 'viem';
import { mnemonicToAccount, privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts';

/** anvil's well-known test mnemonic (docs/operations.md): #0 service, #1–#4 production wallets, #5–#9 testnet. */
export const DEV_MNEMONIC = 'test test test test test test test test test test test junk';

/** The private key of anvil's account `index` (what the legacy x402 clients' `createSigner` takes). */
export const devKey = (index: number): `0x${string}` => toHex(mnemonicToAccount(DEV_MNEMONIC, { addressIndex: index }).getHdKey().privateKey!);

export const devAccount = (index: number): PrivateKeyAccount => privateKeyToAccount(devKey(index));

function client(account: PrivateKeyAccount) {
  return x402Client.fromConfig({
    schemes: [{ network: 'eip155:*', client: new ExactEvmScheme(account) }],
    spendControls: false,
  });
}

/** fetch that pays 402s with `account`, exactly as an x402 client application would (the first offer, or the selector's). */
export function payingFetch(account: PrivateKeyAccount, inner: typeof fetch = fetch, selector?: SelectPaymentRequirements): typeof fetch {
  return wrapFetchWithPaymentFromConfig(inner, {
    schemes: [{ network: 'eip155:*', client: new ExactEvmScheme(account) }],
    spendControls: false,
    ...(selector ? { paymentRequirementsSelector: selector } : {}),
  });
}

const EURC = new Set(Object.values(NETWORKS).map((n) => n.assets.EURC.address.toLowerCase()));
export const isEurcOffer = (r: { asset: string }) => EURC.has(r.asset.toLowerCase());

/** A client's selector that pays in EURC whenever a 402 offers it. */
export const preferEurc: SelectPaymentRequirements = (_version, accepts) => accepts.find(isEurcOffer) ?? accepts[0]!;

/** The same 402 with only its EURC offers, for `signPayment` (which signs the first offer). */
export function eurcOnly(required: PaymentRequired): PaymentRequired {
  return { ...required, accepts: required.accepts.filter(isEurcOffer) };
}

/** A PAYMENT-SIGNATURE header value for the first option of a 402's PAYMENT-REQUIRED. */
export async function signPayment(account: PrivateKeyAccount, required: PaymentRequired): Promise<string> {
  const payload = await client(account).createPaymentPayload(required);
  return encodePaymentSignatureHeader(payload);
}

export function decodeBase64Json<T = unknown>(header: string | null): T {
  if (!header) throw new Error('missing header');
  return JSON.parse(Buffer.from(header, 'base64').toString('utf8')) as T;
}

/** A PaymentRequired object offering USDC at `amount` on `networks`, for tests of its readers (the service's own 402 is the pipeline's challenge). */
export function usdcPaymentRequired(resource: ResourceInfo, networks: readonly Network[], amount: bigint): PaymentRequiredObject {
  return { x402Version: X402_VERSION, resource, accepts: networks.map((n) => requirementsFor(n, amount, DEFAULT_SETTINGS.payTo[n])) };
}
