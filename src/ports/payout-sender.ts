import type { Payout } from '../domain/payout.js';

export interface SentTransfer {
  txHash: string;
}

export type TransferStatus = 'pending' | 'confirmed' | 'failed' | 'unknown';

/** Moves USDC from the treasury to a wallet. */
export interface PayoutSender {
  send(payout: Payout): Promise<SentTransfer>;
  status(payout: Payout): Promise<TransferStatus>;
}
