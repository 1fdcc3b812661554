/**
 * Paying from the browser with the official x402 client packages: the unpaid request gets the
 * 402 and its price (shown before anything is signed), the wallet signs the chosen offer's
 * EIP-3009 authorization through @x402/evm's exact scheme, and the retry carries it in
 * PAYMENT-SIGNATURE. A settlement still pending (202) is followed until the payment is applied,
 * then the same request is sent again to get the original answer (a replay is never charged).
 */
import { x402Client, x402HTTPClient } from '@x402/core/client';
import type { PaymentRequired, PaymentRequirements } from '@x402/core/types';
import { ExactEvmScheme } from '@x402/evm/exact/client';
import { NETWORKS, isNetwork } from '../../../domain/network.js';
import { ApiError, read, readEnvelope } from './api.js';
import { fromUnits } from './format.js';
import type { Envelope, PaymentPending } from './types.js';
import { signTypedData } from './wallet.js';

export interface Offer {
  index: number;
  network: string;
  assetName: string;
  /** In whole units of the asset (6 decimals for USDC and EURC). */
  amount: string;
  payTo: string;
}

export interface Priced {
  kind: 'priced';
  required: PaymentRequired;
  offers: Offer[];
}

export interface Answered<T> {
  kind: 'answered';
  status: number;
  data: T;
  /** The settlement transaction, from PAYMENT-RESPONSE. */
  transaction: string | null;
}

const http = new x402HTTPClient(new x402Client());

function assetName(network: string, asset: string): string {
  if (!isNetwork(network)) return asset;
  const found = Object.entries(NETWORKS[network].assets).find(([, a]) => a.address.toLowerCase() === asset.toLowerCase());
  return found ? found[0] : asset;
}

async function post(url: string, body: unknown, wallet: string, headers: Record<string, string> = {}): Promise<Response> {
  try {
    return await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json', 'x-wallet-address': wallet, ...headers },
      body: JSON.stringify(body),
    });
  } catch {
    throw new ApiError(0, 'UNREACHABLE', 'The service could not be reached. Check your connection and try again.');
  }
}

/**
 * The price of a paid request, asked without paying. The wallet names itself (X-Wallet-Address),
 * so the 402 offers only the network it pays on. An answer other than 402 (a request the
 * service refuses before any payment, or one that needs none) is returned or thrown as it is.
 */
export async function price<T>(url: string, body: unknown, wallet: string): Promise<Priced | Answered<T>> {
  const res = await post(url, body, wallet);
  if (res.status !== 402) return { kind: 'answered', status: res.status, data: await readEnvelope<T>(res), transaction: null };
  const envelope = (await res.clone().json().catch(() => null)) as Envelope<never> | null;
  if (envelope?.success !== false || envelope.error?.code !== 'PAYMENT_REQUIRED') await readEnvelope(res); // throws the refusal in words
  const required = http.getPaymentRequiredResponse((name) => res.headers.get(name), envelope);
  // The page pays by `exact`, one authorization per call: a browser wallet opens no channel.
  const offers = required.accepts.flatMap((r: PaymentRequirements, index: number) => (r.scheme !== 'exact' ? [] : [{
    index,
    network: r.network,
    assetName: assetName(r.network, r.asset),
    amount: fromUnits(r.amount, 6),
    payTo: r.payTo,
  }]));
  return { kind: 'priced', required, offers };
}

export type PayState = 'signing' | 'submitting' | 'settling';

/** Signs the chosen offer with the wallet, sends the paid request and returns its answer. */
export async function pay<T>(url: string, body: unknown, wallet: string, priced: Priced, offerIndex: number, onState: (s: PayState) => void): Promise<Answered<T>> {
  const chosen = priced.required.accepts[offerIndex];
  if (!chosen) throw new Error('No such offer.');
  // The client may sign exactly the offer shown, at exactly its amount: nothing else passes its spend controls.
  const client = new x402Client().setSpendControls({
    maxAmountPerPayment: false,
    allowedAssets: [{ network: chosen.network, asset: chosen.asset, maxAmountPerPayment: chosen.amount }],
  });
  client.register('eip155:*', new ExactEvmScheme({ address: wallet as `0x${string}`, signTypedData: (m) => signTypedData(wallet, m) }));
  const signer = new x402HTTPClient(client);
  onState('signing');
  const payload = await signer.createPaymentPayload({ ...priced.required, accepts: [chosen] });
  const headers = signer.encodePaymentSignatureHeader(payload);
  onState('submitting');
  let res = await post(url, body, wallet, headers);
  if (res.status === 202) {
    onState('settling');
    const pending = await readEnvelope<PaymentPending>(res);
    await untilApplied(pending.paymentId);
    res = await post(url, body, wallet, headers); // the stored answer, not charged again
  }
  const data = await readEnvelope<T>(res);
  let transaction: string | null;
  try {
    transaction = signer.getPaymentSettleResponse((name) => res.headers.get(name)).transaction || null;
  } catch {
    transaction = null;
  }
  return { kind: 'answered', status: res.status, data, transaction };
}

async function untilApplied(paymentId: string): Promise<void> {
  for (;;) {
    await new Promise((r) => setTimeout(r, 1500));
    const p = await read('get_payment', { paymentId });
    if (p.state === 'APPLIED') return;
    if (p.state === 'REFUNDED') throw new ApiError(409, 'REFUNDED', 'The payment settled but the operation could no longer apply; the amount is being paid back to your wallet.');
    if (p.state === 'FAILED' || p.state === 'REJECTED') throw new ApiError(402, 'PAYMENT_INVALID', `The payment did not go through (${p.state.toLowerCase()}); nothing was charged.`);
  }
}
