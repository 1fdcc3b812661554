import { initialCurveState, maxBuyUsd, quoteBuyWithUsd, spotPriceUsd } from '../../domain/curve.js';
import { newDeployment } from '../../domain/deployment.js';
import { ValidationError } from '../../domain/errors.js';
import { formatUsd } from '../../domain/money.js';
import type { Network } from '../../domain/network.js';
import type { CreatorSplit, FeeMode } from '../../domain/fees.js';
import { checkFairLaunchTerms, newRaise, type FairLaunchTerms } from '../../domain/raise.js';
import { newToken, type TokenMetadata } from '../../domain/token.js';
import { newVesting, type VestingTerms } from '../../domain/vesting.js';
import type { AppDeps } from '../kit/deps.js';
import type { PreparedImage } from './image-intake.js';
import { applyInUnitOfWork, type Paid } from '../kit/paid.js';
import { type BuyResult, bookCurveBuy, buyOnCurve, buyResult, checkBuySize } from '../trading/index.js';
import { loadTokenView, tokenView, type TokenView } from '../kit/views.js';

export interface CreateTokenCommand {
  metadata: TokenMetadata;
  /** The payer of the create payment. */
  creator: string;
  /** Who brought the token (earns a share of its fees); the creator naming itself names nobody. */
  platformReferrer?: string | null;
  /** The creator's own first buy, in the same payment and transaction (the curve's first trade). */
  initialBuyUsd?: bigint | null;
  /** The network of the creator's payment: the token lives there for ever. */
  network: Network;
  /** An uploaded image, checked and re-encoded before the payment (image-intake.ts): stored with the token. */
  image?: PreparedImage | null;
  /** A fair launch: a raise on these terms instead of trading at once (docs/api.md "Fair launches"). */
  fairLaunch?: FairLaunchTerms | null;
  /** Who earns the creator share: the creator's wallets (default), or each trade's trader (docs/api.md "Fees and earnings"). */
  feeMode?: FeeMode;
  /** The creator share's wallets, checked already (creator-splits.ts); null: the creator alone. */
  creatorSplits?: readonly CreatorSplit[] | null;
  /** The dev buy stays in custody and is released on this schedule (decision 0079). */
  vesting?: VestingTerms | null;
}

/** A created token, with the creator's first buy when it asked for one. */
export type CreatedToken = TokenView & { initialBuy?: BuyResult };

/**
 * The checks a create with a dev buy passes before its payment is asked for: the buy's size, and
 * that the fresh curve can sell that much (docs/api.md "POST /tokens").
 */
export function checkInitialBuy(deps: Pick<AppDeps, 'settings'>, initialBuyUsd: bigint): void {
  checkBuySize(deps, initialBuyUsd, { usdAmount: initialBuyUsd });
  const params = deps.settings.curve;
  const q = quoteBuyWithUsd(params, initialCurveState(params), initialBuyUsd);
  if (q.graduates) throw ValidationError.of('initialBuyUsd', 'would buy the whole curve at once; buy less than its capacity at creation');
}

/**
 * A fair launch's terms, checked before the create's payment is asked for. A dev buy is refused
 * with it (decision 0048): the creator would buy before the pledgers, at a lower price — the one
 * thing a fair launch exists to prevent. A creator who wants tokens pledges like anyone.
 */
export function checkFairLaunch(deps: Pick<AppDeps, 'settings'>, terms: FairLaunchTerms, initialBuyUsd: bigint | null): FairLaunchTerms {
  if (initialBuyUsd) throw ValidationError.of('initialBuyUsd', 'is not allowed with a fair launch: the creator pledges like everyone, at the same price');
  const checked = checkFairLaunchTerms(terms, { minUsd: deps.settings.minBuyUsd, maxUsd: deps.settings.maxBuyUsd });
  const capacity = maxBuyUsd(deps.settings.curve, initialCurveState(deps.settings.curve));
  if (checked.goalUsd >= capacity) {
    throw ValidationError.of('launch.goalUsd', 'would buy the whole curve at once; raise less than its capacity at creation');
  }
  // A raise never takes as much as the curve's capacity: a cap at or past it caps nothing.
  if (checked.maxPerWalletUsd !== null && checked.maxPerWalletUsd >= capacity) {
    throw ValidationError.of('launch.maxPerWalletUsd', `is more than the curve can sell (less than $${formatUsd(capacity)})`);
  }
  return checked;
}

/**
 * Creates a token: its ERC-20's address is known at once (CREATE2), and its deployment is queued
 * in the same transaction as the token (the deployment outbox sends it).
 */
export function createToken(deps: Pick<AppDeps, 'uow' | 'clock' | 'ids' | 'tokenIssuer' | 'settings' | 'images'>, cmd: CreateTokenCommand, paid?: Paid<CreatedToken>): Promise<CreatedToken> {
  return applyInUnitOfWork(deps, paid, async (stores, now) => {
    const tokenId = deps.ids.next('tok');
    const params = deps.settings.curve;
    const address = deps.tokenIssuer.predictAddress(cmd.network, {
      tokenId,
      name: cmd.metadata.name,
      symbol: cmd.metadata.symbol,
      totalSupply: params.totalSupply,
    });
    // The upload, stored with the token: its URLs replace any imageUrl (the entrypoint refuses both at once).
    const image = cmd.image && deps.images ? await deps.images.store(stores, cmd.image, now) : null;
    const metadata = image ? { ...cmd.metadata, ...image } : cmd.metadata;
    const referrer = cmd.platformReferrer && cmd.platformReferrer.toLowerCase() !== cmd.creator.toLowerCase() ? cmd.platformReferrer : null;
    const token = newToken({
      tokenId,
      network: cmd.network,
      metadata,
      creator: cmd.creator,
      platformReferrer: referrer,
      params,
      launchFee: deps.settings.launchFee,
      address,
      now,
      launchMode: cmd.fairLaunch ? 'fair' : 'curve',
      feeMode: cmd.feeMode ?? 'creator',
      creatorSplits: cmd.creatorSplits ?? null,
    });
    await stores.tokens.insert(token);
    if (cmd.fairLaunch) {
      const endsAt = new Date(now.getTime() + cmd.fairLaunch.durationSeconds * 1000);
      await stores.raises.insert(newRaise({ tokenId, network: token.network, terms: cmd.fairLaunch, now, endsAt }));
    }
    await stores.deployments.enqueue(newDeployment({ deploymentId: deps.ids.next('dep'), network: token.network, tokenId, address, now }));
    const view = tokenView(token, { volumeUsd24h: 0n, trades24h: 0, holders: 0 });
    await stores.events.append({
      type: 'token.created',
      network: token.network,
      tokenId: token.tokenId,
      data: { token: view, paymentId: paid?.payment.paymentId ?? null },
      createdAt: now,
    });
    if (!cmd.initialBuyUsd) return view;
    // The dev buy: the curve's first trade, at the base fee, booked with the token; its tokens are
    // delivered once the contract is deployed (deliveries wait for DEPLOYED) — or, vested, stay
    // in custody, locked, and are released on their schedule (workers/vesting-releaser.ts).
    const buy = { buyer: cmd.creator, grossUsd: cmd.initialBuyUsd, minTokensOut: 0n, payment: paid?.payment, now };
    const { booked, delivery } = cmd.vesting ? { booked: await bookCurveBuy(deps, stores, token, buy), delivery: null } : await buyOnCurve(deps, stores, token, buy);
    if (cmd.vesting) {
      const vesting = newVesting(booked.trade.tokenAmount, cmd.vesting, now);
      await stores.tokens.startVesting(tokenId, vesting);
      booked.token = { ...booked.token, vesting };
    }
    const initialBuy = buyResult(booked, delivery, spotPriceUsd(booked.token.curve), undefined);
    return { ...(await loadTokenView(stores, booked.token, now)), initialBuy };
  });
}

/**
 * Who earns a new token's creator share and how its dev buy is held, checked before the
 * create's payment is asked for (docs/api.md "Fees and earnings"): a cashback token takes no
 * splits (its traders earn the share), a vesting needs a dev buy to lock.
 */
export function checkCreatorTerms(terms: { feeMode: FeeMode; creatorSplits: readonly CreatorSplit[] | null; vesting: VestingTerms | null; initialBuyUsd: bigint | null }): void {
  if (terms.feeMode === 'cashback' && terms.creatorSplits) throw ValidationError.of('creatorSplits', "is not for a cashback token: each trade's own trader earns the creator share");
  if (terms.vesting && !terms.initialBuyUsd) throw ValidationError.of('vesting', 'locks a dev buy: give initialBuyUsd with it');
}
