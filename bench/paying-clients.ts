/**
 * The load generator's paying clients: official @x402/fetch clients, one per wallet slot, paying
 * by `exact` (ExactEvmScheme: a transferWithAuthorization settled per call) or by
 * `batch-settlement` (@x402/evm's BatchSettlementEvmScheme: a deposit, then a voucher per call).
 * They live for the whole run, so a batch client's channel — its deposit, its cumulative
 * voucher — carries over from round to round as an agent's would; each batch client has a salt
 * of its own, so clients sharing a wallet pay from different channels (one client, one channel:
 * no two in flight on one channel).
 *
 * Every HTTP exchange's header bytes (both round trips of a paid call) are added to the tally
 * the current load names.
 */
import { BatchSettlementEvmScheme } from '@x402/evm/batch-settlement/client';
import { wrapFetchWithPaymentFromConfig } from '@x402/fetch';
import { numberToHex } from 'viem';
import type { PrivateKeyAccount } from 'viem/accounts';
import { TESTNET } from '../src/domain/network.js';
import { decodeBase64Json, devAccount, payingFetch } from '../test/support/x402-client.js';

export type Scheme = 'exact' | 'batch';

export interface PayingClient {
  account: PrivateKeyAccount;
  pay: typeof fetch;
  /** Batch clients: the scheme, for its cooperative refund; its channel, once a call told it. */
  batch?: { scheme: BatchSettlementEvmScheme; channelId: string | null };
}

/** Header bytes counted since the tally was last reset. */
export const headerTally = { bytes: 0 };

/** Bytes of a header block as sent on the wire: `name: value\r\n` per header. */
function headerBytes(headers: Headers): number {
  let n = 0;
  headers.forEach((value, name) => (n += name.length + value.length + 4));
  return n;
}

/** fetch, counting both directions' header bytes into `headerTally`. */
const counting: typeof fetch = async (input, init) => {
  const sent = new Headers(input instanceof Request ? input.headers : undefined);
  new Headers(init?.headers).forEach((v, k) => sent.set(k, v));
  headerTally.bytes += headerBytes(sent);
  const res = await fetch(input, init);
  headerTally.bytes += headerBytes(res.headers);
  return res;
};

/**
 * `count` clients over the wallets `payers` in turn. A batch client deposits `depositCalls` calls'
 * worth at a time (at least what the offer asks: the official client's default is the offer's
 * `minDeposit`, ten calls).
 */
export function payingClients(scheme: Scheme, payers: readonly number[], count: number, depositCalls: number): PayingClient[] {
  return Array.from({ length: count }, (_, i) => {
    const account = devAccount(payers[i % payers.length]!);
    if (scheme === 'exact') return { account, pay: payingFetch(account, counting) };
    const batch = new BatchSettlementEvmScheme(account, {
      salt: numberToHex(i + 1, { size: 32 }),
      depositStrategy: (c) => {
        const wanted = BigInt(c.requestAmount) * BigInt(depositCalls);
        const least = BigInt(c.minimumDepositAmount);
        return wanted > least ? wanted : least;
      },
    });
    const pay = wrapFetchWithPaymentFromConfig(counting, { schemes: [{ network: 'eip155:*', client: batch }], spendControls: false });
    return { account, pay, batch: { scheme: batch, channelId: null } };
  });
}

/** A batch client's channel, from a paid answer's PAYMENT-RESPONSE (`extra.channelState.channelId`). */
export function noteChannel(client: PayingClient, res: Response): void {
  if (!client.batch || client.batch.channelId) return;
  const header = res.headers.get('payment-response');
  if (!header) return;
  const id = decodeBase64Json<{ extra?: { channelState?: { channelId?: string } } }>(header).extra?.channelState?.channelId;
  if (id) client.batch.channelId = id.toLowerCase();
}

/**
 * The cooperative refund of every batch client's channel (the official client's `refund(url)`):
 * what is left of its deposits back to the payer, its last charges claimed in the same
 * transaction. Returns the refunds that failed, with their reasons.
 */
export async function refundAll(clients: PayingClient[], serviceUrl: string, entrypoint: string): Promise<string[]> {
  const failures: string[] = [];
  for (const c of clients) {
    if (!c.batch?.channelId) continue;
    try {
      const r = await c.batch.scheme.refund(`${serviceUrl}${entrypoint}?network=${TESTNET}&asset=USDC`);
      if (!r.success) failures.push(`${c.batch.channelId}: ${r.errorReason ?? 'refused'}`);
    } catch (e) {
      failures.push(`${c.batch.channelId}: ${(e as Error).message.split('\n')[0]}`);
    }
  }
  return failures;
}
