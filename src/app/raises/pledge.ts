/**
 * Pledging to a fair launch's raise (docs/api.md "Fair launches", decision 0048): the typed data a
 * wallet signs (a USDC ReceiveWithAuthorization to custody, valid past the raise's end), the
 * checks a pledge passes before its $0.01 is asked for, the pledge itself, and its cancel.
 * The USDC stays in the wallet: it is collected only if the raise fills (settle-raise.ts).
 */
import { initialCurveState, maxBuyUsd } from '../../domain/curve.js';
import { CurveCapacityExceeded, HeldAuthorizationInvalid, PledgeCapExceeded, PledgeNotCancellable, PledgeNotFound, RaiseClosed, ValidationError } from '../../domain/errors.js';
import type { NewEvent } from '../../domain/event.js';
import { formatTokens, formatUsd } from '../../domain/money.js';
import { pledgedUsd, raiseOpen, transitionPledge, withinCap, type Pledge, type Raise } from '../../domain/raise.js';
import type { Token } from '../../domain/token.js';
import type { Stores } from '../../ports/unit-of-work.js';
import { readChain } from '../kit/availability.js';
import type { AppDeps } from '../kit/deps.js';
import { type HeldAuthorization, type HeldAuthorizationKey, type Payer, checkHeldAuthorization, heldAuthorizationTypedData, heldKeyOf, holdAuthorization, ownFee, paymentHolder, refuseIfHeld, stablecoin } from '../held/index.js';
import { applyInUnitOfWork, type Paid } from '../kit/paid.js';
import { loadToken } from '../trading/index.js';
import { loadRaise, pledgeView, raiseView, type PledgeView, type RaiseView } from './get-raise.js';

/**
 * How long after the raise's end a pledge's authorization must stay valid: the time its
 * settlement may take (a worker pass, a slow chain). The typed data served asks for a day.
 */
export const PLEDGE_SETTLE_WINDOW_MS = 3_600_000;
export const PLEDGE_AUTHORIZATION_VALID_AFTER_END_MS = 86_400_000;

export interface PledgeRequest {
  tokenId: string;
  usdAmount: bigint;
  authorization: HeldAuthorization;
}

export interface PledgeResult {
  pledge: PledgeView;
  raise: RaiseView;
}

/** What a cancel signs (EIP-191 personal_sign): the pledge by its id, nothing else. */
export const cancelPledgeMessage = (pledgeId: string) => `Cancel pledge ${pledgeId}`;

const openOrClosed = (raise: Raise, now: Date) => {
  if (!raiseOpen(raise, now)) throw new RaiseClosed(raise.tokenId, raise.endsAt.toISOString());
};

async function raiseOf(stores: Stores, tokenId: string, forUpdate = false): Promise<{ token: Token; raise: Raise }> {
  const token = await loadToken(stores, tokenId, forUpdate);
  return { token, raise: await loadRaise(stores, tokenId) };
}

/** GET /api/tokens/:id/pledge-authorization: what `wallet` signs to pledge `usdAmount` (nothing is held yet). */
export async function pledgeAuthorization(deps: Pick<AppDeps, 'uow' | 'clock' | 'ids' | 'tokenIssuer' | 'settings' | 'availability'>, q: { tokenId: string; wallet: string; usdAmount: bigint }) {
  const { token, raise } = await deps.uow.run((s) => raiseOf(s, q.tokenId));
  openOrClosed(raise, deps.clock.now());
  checkPledgeAmount(deps, q.usdAmount);
  await deps.availability?.usable([token.network]);
  const validUntil = new Date(raise.endsAt.getTime() + PLEDGE_AUTHORIZATION_VALID_AFTER_END_MS);
  const { typedData, authorization } = heldAuthorizationTypedData(deps, { network: token.network, asset: 'USDC', wallet: q.wallet, amount: q.usdAmount, validUntil });
  const usdc = stablecoin(token.network, 'USDC').address;
  const balance = await readChain(token.network, () => deps.tokenIssuer.balanceOf(token.network, usdc, q.wallet));
  return {
    tokenId: token.tokenId,
    network: token.network,
    usdAmount: formatUsd(q.usdAmount),
    onChainBalance: formatUsd(balance),
    expiresAt: new Date(Number(typedData.message.validBefore) * 1000).toISOString(),
    typedData,
    authorization,
  };
}

/**
 * Every rule a pledge must pass, before its $0.01 is asked for: the raise takes pledges, the
 * amount is a buy's least, the wallet stays within its cap, the raise's total stays within what
 * the fresh curve can sell, the authorization is not one already held, and — but for a settled
 * payment being applied — the authorization itself (checkHeldAuthorization: signer, amount,
 * custody, window past the end, nonce unused on chain, balance now).
 */
export async function checkPledge(deps: Pick<AppDeps, 'uow' | 'clock' | 'tokenIssuer' | 'settings'>, req: PledgeRequest, phase: 'ask' | 'price' | 'apply' = 'price', caller?: Payer): Promise<{ token: Token; raise: Raise }> {
  const { token, raise, all } = await deps.uow.run(async (s) => ({ ...(await raiseOf(s, req.tokenId)), all: await s.raises.pledgesOf(req.tokenId) }));
  checkPledgeRules(deps, raise, all, req, deps.clock.now());
  if (phase !== 'apply') {
    const validUntil = new Date(raise.endsAt.getTime() + PLEDGE_SETTLE_WINDOW_MS);
    const wallet = req.authorization.from;
    await checkHeldAuthorization(deps, { network: token.network, asset: 'USDC', wallet, amount: req.usdAmount, authorization: req.authorization, validUntil, alsoPays: ownFee(caller, wallet, 'USDC') });
    // Held by a pledge of another raise, an open limit buy, or a payment placing one: only one could ever collect it.
    await deps.uow.run((s) => refuseIfHeld(s, pledgeHeldKey(token.network, req)));
  }
  return { token, raise };
}

/** The held authorization a pledge carries: its USDC. */
const pledgeHeldKey = (network: Token['network'], req: Pick<PledgeRequest, 'authorization'>): HeldAuthorizationKey => heldKeyOf(network, 'USDC', req.authorization);

/** token_pledge's claim: the payment holds the pledge's authorization until it is applied (place-order.ts, reserveOrderAuthorization). */
export function reservePledgeAuthorization(deps: Pick<AppDeps, 'uow'>, req: PledgeRequest, network: Token['network'], paymentId: string): Promise<void> {
  return deps.uow.transaction((s) => holdAuthorization(s, pledgeHeldKey(network, req), paymentHolder(paymentId)));
}

/**
 * The rules a pledge's amount breaks whoever pledges it, whatever else is pledged: below the least
 * buy, the curve's capacity or more. The read that prepares a pledge refuses what the pledge would
 * (issue 51), before anyone signs it. The raise's cap per wallet is the pledge's to judge: a
 * wallet may sign an amount over it and be told so, with the $0.01 not asked for.
 */
function checkPledgeAmount(deps: Pick<AppDeps, 'settings'>, usdAmount: bigint): void {
  checkLeastPledge(deps, usdAmount);
  checkCurveCapacity(deps, 0n, usdAmount);
}

/** A pledge is at least the least buy. */
function checkLeastPledge(deps: Pick<AppDeps, 'settings'>, usdAmount: bigint): void {
  if (usdAmount < deps.settings.minBuyUsd) throw ValidationError.of('usdAmount', `must be at least $${formatUsd(deps.settings.minBuyUsd)}`);
}

/** The raise buys once with its total: never so much that the buy would take the whole curve. */
function checkCurveCapacity(deps: Pick<AppDeps, 'settings'>, pledged: bigint, usdAmount: bigint): void {
  const curve = deps.settings.curve;
  const capacity = maxBuyUsd(curve, initialCurveState(curve));
  if (pledged + usdAmount >= capacity) throw new CurveCapacityExceeded(formatUsd(capacity - 1n - pledged), formatTokens(curve.curveSupply));
}

/** The rules a pledge is checked against the raise's pledges with: before the payment, and again in the pledge's transaction. */
function checkPledgeRules(deps: Pick<AppDeps, 'settings'>, raise: Raise, all: readonly Pledge[], req: PledgeRequest, now: Date): void {
  openOrClosed(raise, now);
  checkLeastPledge(deps, req.usdAmount);
  const from = req.authorization.from.toLowerCase();
  const mine = all.filter((p) => p.wallet.toLowerCase() === from);
  const cap = withinCap(raise, mine, req.usdAmount);
  if (!cap.ok) throw new PledgeCapExceeded(formatUsd(raise.maxPerWalletUsd!), formatUsd(cap.pledged), formatUsd(req.usdAmount));
  checkCurveCapacity(deps, pledgedUsd(all), req.usdAmount);
  if (mine.some((p) => p.authorization.nonce.toLowerCase() === req.authorization.nonce.toLowerCase())) {
    throw new HeldAuthorizationInvalid('used', 'This authorization is already held for another pledge; sign a fresh one.');
  }
}

/** token_pledge: the pledge held, with its $0.01 payment, in one transaction (the rules again, under the token's lock). */
export function placePledge(deps: Pick<AppDeps, 'uow' | 'clock' | 'ids' | 'settings'>, req: PledgeRequest, paid?: Paid<PledgeResult>): Promise<PledgeResult> {
  return applyInUnitOfWork(deps, paid, async (stores, now) => {
    const { token, raise } = await raiseOf(stores, req.tokenId, true);
    const before = await stores.raises.pledgesOf(req.tokenId);
    checkPledgeRules(deps, raise, before, req, now);
    const a = req.authorization;
    const pledgeId = deps.ids.next('pld');
    // Taken from the payment that held it since its claim; held by another open order or pledge: refused (the fee refunded).
    await holdAuthorization(stores, pledgeHeldKey(token.network, req), { kind: 'pledge', id: pledgeId }, paid && paymentHolder(paid.payment.paymentId));
    const pledge: Pledge = {
      pledgeId,
      tokenId: token.tokenId,
      network: token.network,
      wallet: a.from,
      usdAmount: req.usdAmount,
      state: 'PLEDGED',
      authorization: { asset: 'USDC', ...a },
      paymentId: paid?.payment.paymentId ?? null,
      tokens: 0n,
      dropReason: null,
      payoutId: null,
      createdAt: now,
      updatedAt: now,
    };
    await stores.raises.insertPledge(pledge);
    const view = raiseView(raise, [...before, pledge]);
    await stores.events.append(raiseEvent('raise.pledged', raise, { pledge: pledgeView(pledge), pledgedUsd: view.pledgedUsd, goalUsd: view.goalUsd }, now));
    return { pledge: pledgeView(pledge), raise: view };
  });
}

export function raiseEvent(type: 'raise.pledged' | 'raise.pledge_cancelled' | 'raise.filled' | 'raise.failed', raise: Raise, data: Record<string, unknown>, now: Date): NewEvent {
  return { type, network: raise.network, tokenId: raise.tokenId, data: { tokenId: raise.tokenId, ...data }, createdAt: now };
}

/**
 * POST /api/pledges/:pledgeId/cancel: free, until the raise's end, for the pledger alone — proven
 * by its EIP-191 signature of "Cancel pledge <pledgeId>", or over HTTP by Sign-In-With-X. A
 * cancelled pledge is never collected; a wallet that trusts nobody can also cancel its
 * authorization on chain (docs/api.md).
 */
export async function cancelPledge(deps: Pick<AppDeps, 'uow' | 'clock' | 'signatures'>, q: { pledgeId: string; signature?: string | undefined; provenWallet?: string | undefined }): Promise<PledgeResult> {
  const signer = q.signature
    ? await deps.signatures.signerOf(cancelPledgeMessage(q.pledgeId), q.signature)
    : (q.provenWallet ?? null);
  return applyInUnitOfWork(deps, undefined, async (stores, now) => {
    const pledge = await stores.raises.getPledge(q.pledgeId);
    if (!pledge) throw new PledgeNotFound(q.pledgeId);
    if (!signer || signer.toLowerCase() !== pledge.wallet.toLowerCase()) throw new PledgeNotCancellable(q.pledgeId, 'not_the_pledger');
    const { raise } = await raiseOf(stores, pledge.tokenId, true);
    openOrClosed(raise, now);
    if (pledge.state !== 'PLEDGED') throw new PledgeNotCancellable(q.pledgeId, 'not_pledged', pledge.state);
    const cancelled = transitionPledge(pledge, 'CANCELLED', now);
    if (!(await stores.raises.updatePledge(cancelled, 'PLEDGED'))) throw new PledgeNotCancellable(q.pledgeId, 'not_pledged', pledge.state);
    const view = raiseView(raise, await stores.raises.pledgesOf(pledge.tokenId));
    await stores.events.append(raiseEvent('raise.pledge_cancelled', raise, { pledge: pledgeView(cancelled), pledgedUsd: view.pledgedUsd }, now));
    return { pledge: pledgeView(cancelled), raise: view };
  });
}
