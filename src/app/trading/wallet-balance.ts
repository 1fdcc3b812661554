/**
 * GET /api/wallets/:address/balance (docs/api.md "Free endpoints"): what a wallet holds of the
 * payment assets on chain now — the USDC (and EURC) it pays and pledges with, on its network.
 */
import { z } from 'zod';
import { formatUsd } from '../../domain/money.js';
import { assetAddress, type Network } from '../../domain/network.js';
import { readChain } from '../kit/availability.js';
import type { AppDeps } from '../kit/deps.js';
import { amount } from '../kit/output-schemas.js';
import { networkSchema } from '../kit/schemas.js';

export const walletBalanceOutput = z.object({
  wallet: z.string(),
  network: networkSchema,
  usdc: amount.meta({ description: 'USDC on chain now (what payments, limit buys and pledges draw on)' }),
  eurc: amount.meta({ description: 'EURC on chain now (the second payment asset)' }),
});

export type WalletBalance = z.output<typeof walletBalanceOutput>;

/** The wallet's USDC and EURC on `network`, read from the chain (503 when its chain does not answer). */
export async function walletBalance(deps: Pick<AppDeps, 'tokenIssuer'>, q: { wallet: string; network: Network }): Promise<WalletBalance> {
  const [usdc, eurc] = await readChain(q.network, () =>
    Promise.all([deps.tokenIssuer.balanceOf(q.network, assetAddress(q.network, 'USDC'), q.wallet), deps.tokenIssuer.balanceOf(q.network, assetAddress(q.network, 'EURC'), q.wallet)]),
  );
  return { wallet: q.wallet, network: q.network, usdc: formatUsd(usdc), eurc: formatUsd(eurc) };
}
