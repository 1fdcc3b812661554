/**
 * What a receipt shows done (docs/decisions/0066): the ERC-20 `Transfer` logs in it. A successful
 * status only says nothing reverted — a call to an address without code succeeds and emits
 * nothing — so a delivery, a payout or a deployment is confirmed by its Transfer log: the expected
 * token (the log's emitter), sender, recipient and amount.
 */
import { toEventSelector, type Hex, type TransactionReceipt } from 'viem';

const TRANSFER = toEventSelector('Transfer(address,address,uint256)');

export interface ExpectedTransfer {
  /** The token contract that emits the log. */
  token: string;
  /** Null: any sender, and any recipient (a swap's pair, which the router finds). */
  from: string | null;
  to: string | null;
  amount: bigint;
  /** `amount` is a bound, not the amount (a swap's least output). */
  atLeast?: boolean;
}

const topicAddress = (topic: Hex | undefined) => (topic ? `0x${topic.slice(26)}`.toLowerCase() : '');

/** The expected transfers the receipt's Transfer logs do not show (each log answers for one). */
export function missingTransfers(receipt: Pick<TransactionReceipt, 'logs'>, expected: readonly ExpectedTransfer[]): ExpectedTransfer[] {
  const logs = receipt.logs
    .filter((l) => l.topics[0]?.toLowerCase() === TRANSFER && l.topics.length === 3)
    .map((l) => ({ token: l.address.toLowerCase(), from: topicAddress(l.topics[1]), to: topicAddress(l.topics[2]), amount: l.data === '0x' ? 0n : BigInt(l.data) }));
  const missing: ExpectedTransfer[] = [];
  for (const e of expected) {
    const at = logs.findIndex(
      (l) =>
        l.token === e.token.toLowerCase() &&
        (e.from === null || l.from === e.from.toLowerCase()) &&
        (e.to === null || l.to === e.to.toLowerCase()) &&
        (e.atLeast ? l.amount >= e.amount : l.amount === e.amount),
    );
    if (at < 0) missing.push(e);
    else logs.splice(at, 1);
  }
  return missing;
}

/** `missing` as what an operator reads, or null when nothing is missing. */
export function describeMissing(missing: readonly ExpectedTransfer[]): string | null {
  if (missing.length === 0) return null;
  return `no Transfer log of ${missing.map((t) => `${t.atLeast ? 'at least ' : ''}${t.amount} of ${t.token} from ${t.from ?? 'anyone'} to ${t.to ?? 'anyone'}`).join(', ')}`;
}

/** Whether `emitter` logged an event whose first topic is `topic` (an event's selector). */
export const logged = (receipt: Pick<TransactionReceipt, 'logs'>, emitter: string, topic: Hex): boolean =>
  receipt.logs.some((l) => l.address.toLowerCase() === emitter.toLowerCase() && l.topics[0]?.toLowerCase() === topic.toLowerCase());
