/**
 * A transaction custody signs for one paid operation and must send at most once (a sell's pull
 * of the seller's tokens, a graduated token's swap on its pool): recorded before it is broadcast,
 * keyed by the operation's payment, so a retry — the request's own, or the reconciler's after a
 * crash — follows the same transaction, never a second one.
 */
export interface CustodyTransaction {
  readonly paymentId: string;
  readonly network: string;
  readonly tokenId: string;
  readonly txHash: string;
  readonly rawTx: string;
  readonly createdAt: Date;
}

/**
 * Custody's decision, taken before anything was signed, that the operation sends no transaction
 * (its checks refused it: a pool that moved past the bound). It stands for the payment as a
 * transaction would: a second copy of the operation that passed its checks a moment earlier (the
 * request, slower than the reconciler's grace) cannot record one after it — the refusal's refund
 * never meets a swap of the same money (docs/decisions/0059).
 */
export interface NotSent {
  readonly paymentId: string;
  readonly network: string;
  readonly tokenId: string;
  readonly notSent: true;
  readonly createdAt: Date;
  /**
   * What the refusal said, for a later copy of the operation to answer the same (decision 0063);
   * absent where a refund recorded it (the payment is closed) and on refusals recorded before.
   */
  readonly refusal?: RecordedRefusal;
}

/** A refusal as its caller was answered: the error's code, message and details (JSON), its own status and Retry-After where it has them. */
export interface RecordedRefusal {
  readonly code: string;
  readonly message: string;
  readonly details?: Readonly<Record<string, unknown>>;
  readonly status?: number;
  readonly retryAfterSeconds?: number;
}

export const isNotSent = (r: CustodyTransaction | NotSent): r is NotSent => 'notSent' in r;

/** The refusal of `paymentId`'s transaction, recorded at `createdAt`, with what it said when a refusal of the checks made it. */
export const notSent = (paymentId: string, network: string, tokenId: string, createdAt: Date, refusal?: RecordedRefusal): NotSent => ({
  paymentId,
  network,
  tokenId,
  notSent: true,
  createdAt,
  ...(refusal ? { refusal } : {}),
});

export interface CustodyTransactionStore<T extends CustodyTransaction> {
  /** Records the transaction unless the payment has one (or its refusal); returns what stands. */
  record(tx: T): Promise<T | NotSent>;
  /** Records that the payment sends none, unless it has a transaction already; returns what stands. */
  refuse(refusal: NotSent): Promise<T | NotSent>;
  get(paymentId: string): Promise<T | NotSent | null>;
  /**
   * Swaps a transaction that can never be mined (dropped) for a new one, by compare-and-set on
   * the old hash.
   */
  replace(next: T, fromTxHash: string): Promise<boolean>;
}
