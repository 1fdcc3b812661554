/**
 * Earnings' entries of the catalogue (docs/api.md "Fees and earnings"): a wallet's earnings and the creators by earnings.
 */
import { checksummed } from '../kit/address.js';
import { z } from 'zod';
import { read } from '../kit/catalogue/operation.js';
import { walletSchema } from '../kit/schemas.js';
import { getWalletEarnings, listCreators } from './earnings.js';
import { creatorsOutput, creatorsQuery, earningsOutput } from './schemas.js';

/** The free reads of this room, by operation (the assembly in ../catalogue.ts orders them). */
export function earningsReads() {
  return {
    earnings: read({
      operation: 'earnings',
      description: "A wallet's fee shares as creator or referrer: accrued, paid (confirmed on chain) and pending, by token and role.",
      summary: "a wallet's fee shares as creator or referrer",
      http: { path: '/api/wallets/:address/earnings' },
      inputSchema: z.strictObject({ address: walletSchema }),
      outputSchema: earningsOutput,
      run: (deps, q) => getWalletEarnings(deps, checksummed(q.address)),
    }),
    creators: read({
      operation: 'creators',
      description: 'Creators ranked by what they earned.',
      summary: 'creators ranked by what they earned',
      http: { path: '/api/creators' },
      inputSchema: creatorsQuery,
      outputSchema: creatorsOutput,
      run: (deps, q) => listCreators(deps, q.limit),
    }),
  };
}
