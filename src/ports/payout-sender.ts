import type { Payout } from '../domain/payout.js';
import type { PreparedTransfer, TransactionSender } from './transaction-sender.js';

export type { PreparedTransfer, TransferStatus } from './transaction-sender.js';

/**
 * Moves a payout's asset (USDC or EURC) from the treasury to a wallet, in two steps so the transaction's identity is
 * recorded before it exists anywhere else: sign (`prepare`), record, then broadcast.
 */
export interface PayoutSender extends TransactionSender {
  prepare(payout: Payout): Promise<PreparedTransfer>;
}
