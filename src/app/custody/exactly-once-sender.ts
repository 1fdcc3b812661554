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
 *   │                                       ├──── no-effect → the caller's "pending", an error logged
 *   └─ wait ◀── pending (until pullWaitMs) ─┤──── pending past the wait → the caller's "pending"
 *   └─ sign again, replace (CAS) ◀─ dropped ┘
 *
 * "sign" and "sign again" happen only in the process that signs for custody; another asks it
 * (an intent, custody-intents.ts) and follows what it records (docs/decisions/0031).
 *
 * `no-effect` — mined as a success without the Transfer it was signed for — is the chain not being
 * the books' (docs/decisions/0066): never taken as done, never signed again; the payment stays
 * as it is (the caller's "pending") and an operator is told.
 *
 * A refusal of the checks is recorded for the key too (the store's `NotSent`), in the record's
 * place: two copies of one operation (a request slower than the reconciler's grace, and the
 * reconciler's) can check a moment apart and disagree — one refused and refunded, the other
 * signing a swap of the same money. Whichever is recorded first stands; the other follows it
 * (docs/decisions/0059).
 */
import { DomainError, isRefusal, ServiceUnavailable, type ErrorDetails } from '../../domain/errors.js';
import type { Network } from '../../domain/network.js';
import type { CustodyIntentKind } from '../../ports/custody-intent-store.js';
import { isNotSent, notSent, type CustodyTransaction, type CustodyTransactionStore, type NotSent, type RecordedRefusal } from '../../ports/custody-transaction-store.js';
import type { TransactionSender } from '../../ports/transaction-sender.js';
import type { Stores } from '../../ports/unit-of-work.js';
import type { AppDeps } from '../kit/deps.js';

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
  /** What the record is filed under. */
  tokenId: string;
  chain: Pick<TransactionSender, 'release' | 'broadcast' | 'status'>;
  store(stores: Stores): CustodyTransactionStore<T>;
  /** Signs a fresh transaction (nothing is sent). */
  sign(): Promise<T>;
  /**
   * The checks before the first signature: `check` throws to send nothing at all. Its refusal (a
   * domain error; an outage is none) is recorded for the key with what it said, and a copy of the
   * operation that finds it recorded answers `refusedBefore(recorded)` — without checking again:
   * the recorded refusal's own words where it has them (`answerRecorded`, decision 0063).
   */
  beforeSigning?: { check(): Promise<void>; refusedBefore(recorded: NotSent): Error };
  /** Mined and failed: nothing moved. */
  reverted(): Error;
  /** Not mined within the wait: the payment stays as it is and the reconciler comes back. */
  pending(txHash: string): Error;
  /**
   * What a process that does not sign for custody asks of the one that does (custody-intents.ts
   * rebuilds this transaction from it there); none: it can only be signed where it runs.
   */
  intent?: { kind: CustodyIntentKind; tokenId: string; request: string };
}

type SenderDeps = Pick<AppDeps, 'uow' | 'settings' | 'custody' | 'logger' | 'clock'> & Partial<Pick<AppDeps, 'metrics'>>;

/**
 * Sends the operation's transaction (or follows the one it has) until it is mined; returns its
 * record. Where this process does not sign for custody (docs/decisions/0031), the signing — the
 * first signature, and a new one for a dropped transaction — is asked of the process that does,
 * and this one follows what that one records, as it would its own.
 */
export async function sendExactlyOnce<T extends CustodyTransaction>(deps: SenderDeps, send: ExactlyOnce<T>): Promise<T> {
  const { chain, network, key } = send;
  const deadline = Date.now() + deps.settings.pullWaitMs;
  const signsHere = () => deps.custody?.signing() ?? true;
  const recorded = await deps.uow.run((s) => send.store(s).get(key));
  let tx = sendable(
    send,
    recorded ?? (await checkBeforeSigning(deps, send)) ?? (signsHere() ? await signFirst(deps, send) : await askSigner(deps, send, null, deadline)),
  );
  for (let delay = 50; ; delay = Math.min(delay * 2, 500)) {
    await chain.broadcast(network, tx.rawTx).catch(() => undefined); // the status below tells
    const status = await chain.status(network, tx.txHash, tx.rawTx);
    if (status === 'confirmed') return tx;
    if (status === 'reverted') throw send.reverted();
    if (status === 'no-effect') {
      deps.metrics?.increment('transactions_without_effect_total', { kind: send.intent?.kind ?? 'custody' });
      deps.logger?.error(
        'a custody transaction was mined as a success without its effect: the chain is not the one the books were kept on; not taken as done, not sent again — an operator must look (docs/operations.md, "The books know their chain")',
        { paymentId: key, network, txHash: tx.txHash },
      );
      throw send.pending(tx.txHash);
    }
    if (status === 'dropped') {
      tx = sendable(send, signsHere() ? await signAgain(deps, send, tx) : await askSigner(deps, send, tx.txHash, deadline));
      continue;
    }
    if (Date.now() >= deadline) throw send.pending(tx.txHash);
    await new Promise((r) => setTimeout(r, delay));
  }
}

/** The recorded transaction to follow; a recorded refusal (its checks', or its payment's refund) is answered as the refusal. */
function sendable<T extends CustodyTransaction>(send: ExactlyOnce<T>, recorded: T | NotSent): T {
  if (!isNotSent(recorded)) return recorded;
  // Without checks of its own, only a refund records it (application.ts): the payment is closed.
  throw send.beforeSigning?.refusedBefore(recorded) ?? new Error(`payment ${send.key} was refunded before its transaction was sent; nothing is sent`);
}

/**
 * The checks before the first signature. They read the chain after the record was read: another
 * process may have recorded, broadcast and mined the transaction in between (its nonce now used,
 * the balance moved), so a refusal stands only once it is recorded for the key — where a
 * transaction is recorded already, that one is followed, never refused after it moved the money.
 * An outage records nothing: a later copy checks again. Null: sign.
 */
async function checkBeforeSigning<T extends CustodyTransaction>(deps: Pick<SenderDeps, 'uow' | 'clock'>, send: ExactlyOnce<T>): Promise<T | NotSent | null> {
  try {
    await send.beforeSigning?.check();
    return null;
  } catch (e) {
    const refusal = isRefusal(e) && !(e instanceof ServiceUnavailable) ? notSent(send.key, send.network, send.tokenId, deps.clock.now(), recordOf(e)) : null;
    const stands = await (refusal ? deps.uow.transaction((s) => send.store(s).refuse(refusal)) : deps.uow.run((s) => send.store(s).get(send.key)));
    if (stands && !isNotSent(stands)) return stands;
    // Another copy's refusal was recorded first: it stands, in its words (decision 0063).
    if (refusal && stands && stands !== refusal) throw send.beforeSigning!.refusedBefore(stands);
    throw e;
  }
}

/**
 * A refusal another copy of the same operation recorded before anything was sent (decision 0063),
 * answered again as it was: the same code, message and details, and status — the envelope its
 * first caller had. Not a class of the domain's error table: its code is the recorded one's.
 */
export class RefusedBefore extends DomainError {
  readonly status: number | undefined;
  readonly retryAfterSeconds: number | undefined;
  constructor(
    readonly code: string,
    r: Pick<RecordedRefusal, 'message' | 'details' | 'status' | 'retryAfterSeconds'>,
  ) {
    super(r.message, r.details ? { ...r.details } : undefined);
    this.status = r.status;
    this.retryAfterSeconds = r.retryAfterSeconds;
  }
}

/**
 * What a refusal said, as it is recorded in the transaction's place (decision 0063): its details
 * as JSON keeps them (an integer as its decimal text), or none where JSON cannot hold them.
 */
export function recordOf(e: DomainError): RecordedRefusal {
  const { status, retryAfterSeconds } = e as { status?: unknown; retryAfterSeconds?: unknown };
  const details = e.details === undefined ? undefined : asJson(e.details);
  return {
    code: e.code,
    message: e.message,
    ...(details ? { details } : {}),
    ...(typeof status === 'number' ? { status } : {}),
    ...(typeof retryAfterSeconds === 'number' ? { retryAfterSeconds } : {}),
  };
}

function asJson(details: ErrorDetails): Record<string, unknown> | undefined {
  try {
    return JSON.parse(JSON.stringify(details, (_key, v: unknown) => (typeof v === 'bigint' ? v.toString() : v))) as Record<string, unknown>;
  } catch {
    return undefined;
  }
}

/** A recorded refusal answered again in its own words, or `otherwise` where none were recorded (a refund's record, an older row). */
export function answerRecorded(recorded: NotSent, otherwise: () => Error): Error {
  const r = recorded.refusal;
  return r ? new RefusedBefore(r.code, r) : otherwise();
}

/** Signs the operation's first transaction and records it; returns what stands (a racing signer's, or a racing refusal, if it won). */
export async function signFirst<T extends CustodyTransaction>(deps: Pick<SenderDeps, 'uow'>, send: ExactlyOnce<T>): Promise<T | NotSent> {
  const signed = await send.sign();
  return recordSigned(send.chain, send.network, () => deps.uow.transaction((s) => send.store(s).record(signed)), (r) => !isNotSent(r) && r.txHash === signed.txHash);
}

/**
 * `dropped` can never be mined (its nonce is taken): signs a new one and replaces it by
 * compare-and-set; returns the one that stands. Logged: a nonce custody lost to another
 * transaction is something an operator wants to see.
 */
export async function signAgain<T extends CustodyTransaction>(deps: Pick<SenderDeps, 'uow' | 'logger'>, send: ExactlyOnce<T>, dropped: T): Promise<T | NotSent> {
  const resigned = await send.sign();
  const replaced = await recordSigned(send.chain, send.network, () => deps.uow.transaction((s) => send.store(s).replace(resigned, dropped.txHash)), (ok: boolean) => ok);
  if (!replaced) return (await deps.uow.run((s) => send.store(s).get(send.key)))!;
  deps.logger?.warn('a custody transaction was dropped (its nonce taken by another); signed again', {
    paymentId: send.key,
    network: send.network,
    dropped: dropped.txHash,
    txHash: resigned.txHash,
  });
  return resigned;
}

/**
 * Asks custody's signer (another process) for the operation's transaction — the first one, or
 * one to replace `replaces`, seen dropped — and waits until it is recorded. Should this process
 * take custody over meanwhile (the signer died), it signs itself.
 */
async function askSigner<T extends CustodyTransaction>(deps: SenderDeps, send: ExactlyOnce<T>, replaces: string | null, deadline: number): Promise<T | NotSent> {
  if (!send.intent) throw new Error(`payment ${send.key}: this process does not sign for custody, and this transaction cannot be asked of the one that does`);
  const { kind, tokenId, request } = send.intent;
  await deps.uow.transaction((s) => s.intents.request({ kind, paymentId: send.key, network: send.network, tokenId, request, replaces, requestedAt: new Date() }));
  // A read of one row by its key, often at first: the signer answers within tens of milliseconds.
  for (let delay = 20; ; delay = Math.min(delay + 10, 250)) {
    const tx = await deps.uow.run((s) => send.store(s).get(send.key));
    if (tx && (isNotSent(tx) || tx.txHash !== replaces)) return tx;
    if (deps.custody?.signing() ?? true) return tx ? signAgain(deps, send, tx) : signFirst(deps, send);
    if (Date.now() >= deadline) throw send.pending(replaces ?? 'not signed yet');
    await new Promise((r) => setTimeout(r, delay));
  }
}
