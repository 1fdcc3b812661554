import { formatRatio, formatTokens } from '../../domain/money.js';
import type { Stores } from '../../ports/unit-of-work.js';

/** The top holders of a token, with their share of the tokens in circulation. */
export async function holdersOf(stores: Stores, tokenId: string, limit: number, tokensSold: bigint) {
  return (await stores.positions.holders(tokenId, limit)).map((p) => ({
    wallet: p.wallet,
    balance: formatTokens(p.balance),
    share: tokensSold > 0n ? formatRatio(p.balance, tokensSold, 6) : '0',
  }));
}
