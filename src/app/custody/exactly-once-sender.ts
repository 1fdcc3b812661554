/**
 * Custody's transactions that must happen at most once — a sell's pull of the seller's tokens, a
 * graduated token's swap on its pool, every outbox item — follow one rule: the signed transaction
 * is recorded before it is broadcast, so a crash between the two is healed by broadcasting the
 * same transaction again, never a second one; one that can never be mined (its nonce taken:
 * "dropped") is signed again and replaces the record by compare-and-set.
 *
 * The outbox workers (workers/outbox-worker.ts) take each step on a later pass and share
 * `recordSigned`; a paid request waits for its pull or swap here, in `sendExactlyOnce`:
 *
 *   recorded already?  no → (checks) sign → record ─┐
 *                                                   ▼
 *   ┌──────────────▶ broadcast (again) → status ── confirmed → the record
 *   │                                       ├──── reverted  → the caller's refusal (nothing moved)
 *   └─ wait ◀── pending (until pullWaitMs) ─┤──── pending past the wait → the caller's "pending"
 *   └─ sign again, replace (CAS) ◀─ dropped ┘
 */
import type { Network } from '../../domain/network.js';
import type { CustodyTransaction, CustodyTransactionStore } from '../../ports/custody-transaction-store.js';
import type { TransactionSender } from '../../ports/transaction-sender.js';
import type { Stores } from '../../ports/unit-of-work.js';
import type { AppDeps } from '../deps.js';

/**
 * Records a transaction custody signed, before it is broadcast. When the record fails, or does
 * not stand (`stands` says no: another signer's is there), this one will never be broadcast and
 * its nonce goes back.
 */
export async function recordSigned<R>(
  chain: Pick<TransactionSender, 'release'>,
  network: Network,
  record: () => Promise<R>,
  stands: (recorded: R) => boolean,
): Promise<R> {
  let recorded: R;
  try {
    recorded = await record();
  } catch (e) {
    chain.release(network);
    throw e;
  }
  if (!stands(recorded)) chain.release(network);
  return recorded;
}

/** One transaction to send exactly once for a paid operation. */
export interface ExactlyOnce<T extends CustodyTransaction> {
  /** The operation's payment: one transaction per payment and store. */
  key: string;
  network: Network;
  chain: Pick<TransactionSender, 'release' | 'broadcast' | 'status'>;
  store(stores: Stores): CustodyTransactionStore<T>;
  /** Signs a fresh transaction (nothing is sent). */
  sign(): Promise<T>;
  /** Runs once, before the first signature: throws to send nothing at all. */
  beforeSigning?(): Promise<void>;
  /** Mined and failed: nothing moved. */
  reverted(): Error;
  /** Not mined within the wait: the payment stays as it is and the reconciler comes back. */
  pending(txHash: string): Error;
}

/** Sends the operation's transaction (or follows the one it has) until it is mined; returns its record. */
export async function sendExactlyOnce<T extends CustodyTransaction>(deps: Pick<AppDeps, 'uow' | 'settings'>, send: ExactlyOnce<T>): Promise<T> {
  const { uow } = deps;
  const { chain, network, key } = send;
  let tx: T | null = await uow.run((s) => send.store(s).get(key));
  if (!tx) {
    await send.beforeSigning?.();
    const signed = await send.sign();
    tx = await recordSigned(chain, network, () => uow.transaction((s) => send.store(s).record(signed)), (r) => r.txHash === signed.txHash);
  }
  const deadline = Date.now() + deps.settings.pullWaitMs;
  for (let delay = 50; ; delay = Math.min(delay * 2, 500)) {
    await chain.broadcast(network, tx.rawTx).catch(() => undefined); // the status below tells
    const status = await chain.status(network, tx.txHash, tx.rawTx);
    if (status === 'confirmed') return tx;
    if (status === 'reverted') throw send.reverted();
    if (status === 'dropped') {
      const resigned = await send.sign();
      const from: string = tx.txHash;
      const replaced = await recordSigned(chain, network, () => uow.transaction((s) => send.store(s).replace(resigned, from)), (ok: boolean) => ok);
      tx = replaced ? resigned : (await uow.run((s) => send.store(s).get(key)))!;
      continue;
    }
    if (Date.now() >= deadline) throw send.pending(tx.txHash);
    await new Promise((r) => setTimeout(r, delay));
  }
}
