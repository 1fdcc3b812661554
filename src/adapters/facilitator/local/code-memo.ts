/**
 * An account's code, read once per payment instead of four times (docs/decisions/0054).
 *
 * @x402/evm's exact scheme asks the chain for the payer's code twice in `verify` (is it a smart
 * wallet: ERC-6492, then ERC-1271 or plain ECDSA) and twice again in `settle`, which verifies once
 * more before it submits. The answer cannot differ between those four questions in any way that
 * matters for money: the token contract checks the signature itself when the settlement is mined,
 * and a settlement the chain refuses is the payment flow's FAILED rule (nothing is charged). So the
 * in-process facilitator answers repeats from a memo that lives a few seconds — long enough to
 * span one payment's verify and settle, short enough that an account that gains code (an EIP-7702
 * delegation) is seen as such on its next payment.
 *
 * Concurrent questions for one address share one call; a failed call is not kept; at most
 * `maxEntries` (1,000) addresses are held, none past its time once another is added.
 */
import type { Hex } from 'viem';

export class CodeMemo {
  private readonly entries = new Map<string, { code: Promise<Hex | undefined>; until: number }>();

  constructor(
    private readonly read: (address: Hex) => Promise<Hex | undefined>,
    private readonly options: { ttlMs: number; maxEntries?: number; now?: () => number },
  ) {}

  code(address: Hex): Promise<Hex | undefined> {
    const key = address.toLowerCase();
    const now = this.options.now?.() ?? Date.now();
    const kept = this.entries.get(key);
    if (kept && kept.until > now) return kept.code;
    this.entries.delete(key); // re-inserted last: the map stays in order of expiry
    // Expired entries go as soon as anything is added (an entry holds a whole contract's code, and
    // payers are named by unauthenticated payloads); past the bound the oldest go first.
    const max = this.options.maxEntries ?? 1_000;
    for (const [oldest, entry] of this.entries) {
      if (entry.until > now && this.entries.size < max) break;
      this.entries.delete(oldest);
    }
    const entry = { code: this.read(address), until: now + this.options.ttlMs };
    this.entries.set(key, entry);
    entry.code.catch(() => {
      if (this.entries.get(key) === entry) this.entries.delete(key);
    });
    return entry.code;
  }

  get size(): number {
    return this.entries.size;
  }
}
