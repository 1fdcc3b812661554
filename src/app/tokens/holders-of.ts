import { formatRatio, formatTokens } from '../../domain/money.js';
import type { Token } from '../../domain/token.js';
import { lockedOf } from '../../domain/vesting.js';
import type { Stores } from '../../ports/unit-of-work.js';

/**
 * The top holders of a token, with their share of the tokens in circulation. A vested dev buy's
 * tokens are the creator's, sold on the curve: they count in its balance and share, and `locked`
 * says how many of them are still in custody (docs/api.md "Fees and earnings").
 */
export async function holdersOf(stores: Stores, token: Pick<Token, 'tokenId' | 'creator' | 'vesting' | 'curve'>, limit: number) {
  const { tokensSold } = token.curve;
  const locked = lockedOf(token.vesting);
  return (await stores.positions.holders(token.tokenId, limit)).map((p) => ({
    wallet: p.wallet,
    balance: formatTokens(p.balance),
    share: tokensSold > 0n ? formatRatio(p.balance, tokensSold, 6) : '0',
    locked: formatTokens(p.wallet.toLowerCase() === token.creator.toLowerCase() ? locked : 0n),
  }));
}
