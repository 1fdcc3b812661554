/**
 * A token's creator splits (docs/api.md "Fees and earnings", decision 0078): the wallets its
 * creator share is divided among, named at creation and changed later by the creator — free,
 * its wallet proven with Sign-In-With-X. A change applies to the trades booked after it: trades
 * read the splits from the token they lock, and the change takes the same lock.
 */
import { NotTokenCreator, ValidationError } from '../../domain/errors.js';
import { creatorSplitsProblem, type CreatorSplit } from '../../domain/fees.js';
import { creatorEarners } from '../../domain/token.js';
import type { AppDeps } from '../kit/deps.js';
import { checksummed } from '../kit/address.js';
import { loadTokenView, type TokenView } from '../kit/views.js';
import { checkEarners, loadToken } from '../trading/index.js';

/** Splits as given, checked (count, bps, sum, no wallet twice) and checksummed: VALIDATION_ERROR otherwise. */
export function parseCreatorSplits(given: readonly { wallet: string; bps: number }[]): CreatorSplit[] {
  const splits = given.map((s) => ({ wallet: checksummed(s.wallet), bps: s.bps }));
  const problem = creatorSplitsProblem(splits);
  if (problem) throw ValidationError.of(problem.path, problem.message);
  return splits;
}

/** Each split wallet refused as a referrer would be: none of the service's own accounts or contracts (REFERRER_NOT_ALLOWED). */
export const checkSplitWallets = (deps: Parameters<typeof checkEarners>[0], splits: readonly CreatorSplit[] | null) =>
  checkEarners(deps, (splits ?? []).map((s, i) => [`creatorSplits.${i}.wallet`, s.wallet] as const));

type SplitsDeps = Parameters<typeof checkEarners>[0] & Pick<AppDeps, 'clock'>;

/**
 * POST /tokens/:id/splits: the creator names the wallets its share is split among from now on
 * (the creator alone at 10000 stores as none). Only the creator (403 NOT_TOKEN_CREATOR); never on
 * a cashback token (its traders earn the share). Appends `token.splits_changed`.
 */
export async function setCreatorSplits(deps: SplitsDeps, req: { tokenId: string; wallet: string; creatorSplits: readonly { wallet: string; bps: number }[] }): Promise<TokenView> {
  const splits = parseCreatorSplits(req.creatorSplits);
  await checkSplitWallets(deps, splits);
  return deps.uow.transaction(async (stores) => {
    const token = await loadToken(stores, req.tokenId, true);
    if (token.creator.toLowerCase() !== req.wallet.toLowerCase()) throw new NotTokenCreator(token.tokenId, req.wallet);
    if (token.feeMode === 'cashback') throw ValidationError.of('creatorSplits', "is not for a cashback token: each trade's own trader earns the creator share");
    const alone = splits.length === 1 && splits[0]!.wallet.toLowerCase() === token.creator.toLowerCase();
    const next = alone ? null : splits;
    const now = deps.clock.now();
    await stores.tokens.setCreatorSplits(token.tokenId, next);
    const changed = { ...token, creatorSplits: next };
    await stores.events.append({
      type: 'token.splits_changed',
      network: token.network,
      tokenId: token.tokenId,
      data: { tokenId: token.tokenId, creatorSplits: creatorEarners(changed), previous: creatorEarners(token) },
      createdAt: now,
    });
    return loadTokenView(stores, changed, now);
  });
}
