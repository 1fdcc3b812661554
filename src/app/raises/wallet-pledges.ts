/**
 * GET /api/pledges?wallet (docs/api.md "Fair launches"): a wallet's pledges in force — held, not
 * collected yet — of every raise, each with its token and its raise's end: what the wallet has
 * promised, and may still cancel until that end.
 */
import { z } from 'zod';
import type { Raise } from '../../domain/raise.js';
import type { AppDeps } from '../kit/deps.js';
import { networkSchema } from '../kit/schemas.js';
import { pledgeView } from './get-raise.js';
import { pledgeView as pledgeSchema } from './schemas.js';

export const walletPledgesOutput = z.object({
  wallet: z.string(),
  pledges: z.array(
    pledgeSchema.extend({
      tokenId: z.string(),
      network: networkSchema,
      endsAt: z.string().meta({ description: "the raise's end: the pledge may be cancelled until then" }),
      settling: z.boolean().meta({ description: 'the raise ended and its pledges are being collected' }),
    }),
  ),
});

export type WalletPledges = z.output<typeof walletPledgesOutput>;

export function walletPledges(deps: Pick<AppDeps, 'uow'>, wallet: string): Promise<WalletPledges> {
  return deps.uow.run(async (stores) => {
    const pledges = await stores.raises.pledgedBy(wallet);
    const raises = new Map<string, Raise>();
    // One statement at a time: a transaction's reads are never interleaved.
    for (const tokenId of new Set(pledges.map((p) => p.tokenId))) {
      const raise = await stores.raises.get(tokenId);
      if (raise) raises.set(tokenId, raise);
    }
    return {
      wallet,
      pledges: pledges.flatMap((p) => {
        const raise = raises.get(p.tokenId);
        return raise ? [{ ...pledgeView(p), tokenId: p.tokenId, network: p.network, endsAt: raise.endsAt.toISOString(), settling: raise.state === 'COLLECTING' }] : [];
      }),
    };
  });
}
