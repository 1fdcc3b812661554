/**
 * Selling back to the curve (SPEC §5, §14). The seller's tokens are on chain: the sell carries
 * their EIP-3009 `ReceiveWithAuthorization` to custody, checked in full before any payment is
 * asked for. Once the $0.01 fee is settled, custody pulls the tokens (recorded before it is
 * broadcast, like every transaction the service sends); when the pull is mined, the trade, the
 * position and the payout of the proceeds (in USDC, whatever asset paid the fee) commit in one
 * transaction.
 *
 *   pull mined        → trade + payout (+ payment APPLIED)
 *   pull reverted     → TOKEN_AUTHORIZATION_INVALID: the fee is refunded, nothing was pulled
 *   pull not mined yet→ the payment stays SETTLED (202); the reconciler comes back to it
 *   mined but refused → the tokens go back to the seller (a delivery) and the fee is refunded
 */
import { averagePriceUsd, quoteSell, spotPriceUsd } from '../../domain/curve.js';
import { newDelivery } from '../../domain/delivery.js';
import {
  DomainError,
  InsufficientBalance,
  SlippageExceeded,
  TokenAuthorizationInvalid,
  TokenGraduated,
  TokenNetworkMismatch,
  TokenNotDeployed,
  ValidationError,
} from '../../domain/errors.js';
import { feeOn } from '../../domain/fees.js';
import { minOut } from '../../domain/pool.js';
import { formatTokens, formatUsd } from '../../domain/money.js';
import type { Network } from '../../domain/network.js';
import { newPayout } from '../../domain/payout.js';
import { applySell, emptyPosition, withTransfersIn } from '../../domain/position.js';
import { curveOpenForSells, type Token } from '../../domain/token.js';
import type { TokenAuthorization } from '../../domain/token-authorization.js';
import type { TokenPull } from '../../ports/token-pull-store.js';
import type { AppDeps } from '../deps.js';
import { applyInUnitOfWork, type Paid } from '../paid.js';
import { loadToken, venueOf } from '../trading/load-token.js';
import { dexOf, swapOnPool } from '../trading/pool-swap.js';
import type { Stores } from '../../ports/unit-of-work.js';
import { recordTrade } from '../trading/record-trade.js';
import { payoutView, positionView, tradeView, type PositionView, type TradeView } from '../views.js';

export interface SellRequest {
  tokenId: string;
  tokens: bigint;
  minUsdOut?: bigint | undefined;
  /** The seller's ReceiveWithAuthorization of exactly `tokens` to custody. */
  authorization: TokenAuthorization;
}

export interface SellResult {
  tokenId: string;
  tokensSold: string;
  usdReceived: string;
  feeUsd: string;
  priceUsd: string;
  spotPriceUsd: string;
  position: PositionView;
  trade: TradeView;
  payout: ReturnType<typeof payoutView>;
  /** Custody's receiveWithAuthorization that took the tokens. */
  pullTx: string;
}

/** An authorization must stay usable at least this long when it is checked (SPEC §14). */
export const MIN_AUTHORIZATION_WINDOW_SECONDS = 120n;

/**
 * `price`: before a payment (the 402, and again once the payer is proven): everything, the chain
 * included. `apply`: a settled payment being applied (its pull may already have happened): only
 * what the pull itself will not check.
 */
export type SellPhase = 'price' | 'apply';

const same = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();

/**
 * The token a sell trades: ACTIVE on its curve, GRADUATED with its pool, or GRADUATED with a pool
 * that FAILED on its curve again (else TOKEN_GRADUATED: the pool is on its way).
 */
async function loadSellableToken(stores: Stores, tokenId: string, callerNetwork: Network | undefined, forUpdate = false): Promise<Token> {
  const token = await loadToken(stores, tokenId, forUpdate);
  if (callerNetwork !== undefined && callerNetwork !== token.network) throw new TokenNetworkMismatch(token.network, callerNetwork);
  if (token.state === 'GRADUATED' && token.pool?.state !== 'CREATED' && !curveOpenForSells(token)) throw new TokenGraduated(token.tokenId);
  return token;
}

/** Whether a sell of `token` swaps on its pool (else it sells on the curve). */
const onPool = (token: Token) => token.state === 'GRADUATED' && !curveOpenForSells(token);

/** Smallest gross USD whose proceeds after our fee reach `usdOut`. */
function grossFor(usdOut: bigint, feeBps: bigint): bigint {
  let gross = (usdOut * 10_000n + (10_000n - feeBps) - 1n) / (10_000n - feeBps);
  while (gross - feeOn(gross, feeBps) < usdOut) gross += 1n;
  return gross;
}

/**
 * A sell's proceeds are USDC, the curve's and the pool's own asset, 1:1 with the USD booked —
 * whatever asset paid the $0.01 fee (decision 0021): the treasury holds the curve's reserve in
 * USDC, and a rate taken from the fee's held quote would be a free option on EUR/USD.
 */
function sellProceeds(usdOut: bigint): { asset: 'USDC'; amount: bigint } {
  return { asset: 'USDC', amount: usdOut };
}

function deployedAddress(token: Token): string {
  if (token.deployment.state !== 'DEPLOYED' || !token.address) throw new TokenNotDeployed(token.tokenId, token.deployment.state);
  return token.address;
}

/** The checks a sell must pass before a payment is asked for (and, as `apply`, before it is applied). */
export async function checkSell(
  deps: AppDeps,
  req: SellRequest,
  seller?: { wallet: string; network: Network },
  phase: SellPhase = 'price',
): Promise<{ network: Network }> {
  const token = await deps.uow.read((stores) => loadSellableToken(stores, req.tokenId, seller?.network));
  const address = deployedAddress(token);
  await checkAuthorization(deps, token, address, req, seller, phase);
  if (onPool(token)) {
    // Priced on the pool now (docs/api.md "Graduation"); the swap itself enforces the bound again when mined.
    const { quoter, ref } = venueOf(deps, token, 'sell');
    const q = await quoter.price({ side: 'sell', params: token.params, curve: token.curve, ...(ref ? { token: ref } : {}), tokens: req.tokens });
    if (seller && req.minUsdOut !== undefined && q.usdAmount < req.minUsdOut) throw slippage(req.minUsdOut, q.usdAmount);
    return { network: token.network };
  }
  if (req.tokens > token.curve.tokensSold) {
    throw ValidationError.of('tokens', 'is more than all tokens of this token in circulation');
  }
  const q = quoteSell(token.params, token.curve, req.tokens);
  if (seller && req.minUsdOut !== undefined && q.usdOut < req.minUsdOut) throw slippage(req.minUsdOut, q.usdOut);
  return { network: token.network };
}

async function checkAuthorization(
  deps: AppDeps,
  token: Token,
  address: string,
  req: SellRequest,
  seller: { wallet: string } | undefined,
  phase: SellPhase,
): Promise<void> {
  const a = req.authorization;
  const invalid = (reason: string, message: string, conflict = false) => new TokenAuthorizationInvalid(reason, message, conflict);
  const custody = deps.tokenIssuer.custody(token.network);
  if (a.value !== req.tokens) throw invalid('value', `The authorization must move exactly the tokens sold (${req.tokens} units).`);
  if (!same(a.to, custody)) throw invalid('to', `The authorization must pay the service's custody, ${custody}.`);
  const signer = await deps.tokenIssuer.recoverReceiveAuthorizer(token.network, { address, name: token.name }, a);
  if (!signer || !same(signer, a.from)) throw invalid('signature', 'The signature is not a ReceiveWithAuthorization by `from` on this token.');
  if (seller && !same(seller.wallet, a.from)) {
    throw invalid('payer', 'The sell must be paid by the wallet whose tokens it sells (`from`).', true);
  }
  if (phase === 'apply') return; // the pull checks the rest on chain, and may have happened already
  const now = BigInt(Math.floor(deps.clock.now().getTime() / 1000));
  if (a.validAfter >= now) throw invalid('not_yet_valid', 'The authorization is not valid yet (validAfter).');
  if (a.validBefore < now + MIN_AUTHORIZATION_WINDOW_SECONDS) {
    throw invalid('expiring', `The authorization must stay valid for at least ${MIN_AUTHORIZATION_WINDOW_SECONDS} s more (validBefore).`);
  }
  const [used, balance] = await Promise.all([
    deps.tokenIssuer.authorizationState(token.network, address, a.from, a.nonce),
    deps.tokenIssuer.balanceOf(token.network, address, a.from),
  ]);
  if (used) throw invalid('used', 'The authorization nonce was already used or cancelled.');
  if (balance < a.value) throw new InsufficientBalance(formatTokens(a.value), formatTokens(balance));
}

function slippage(minUsdOut: bigint, usdOut: bigint): SlippageExceeded {
  return new SlippageExceeded('The sell would pay out less than minUsdOut.', formatUsd(minUsdOut), formatUsd(usdOut));
}

export interface SellCommand extends SellRequest {
  seller: string;
  network: Network;
}

/** A pull that is not mined yet: not a refusal — the payment waits, the reconciler returns to it. */
export class PullPending extends Error {
  constructor(paymentId: string, txHash: string) {
    super(`the pull of payment ${paymentId} (${txHash}) is not mined yet`);
    this.name = 'PullPending';
  }
}

export async function sellToken(deps: AppDeps, cmd: SellCommand, paid?: Paid<SellResult>): Promise<SellResult> {
  const key = paid?.payment.paymentId ?? deps.ids.next('pay');
  const pull = await pullTokens(deps, cmd, key);
  try {
    const current = await deps.uow.read((s) => loadSellableToken(s, cmd.tokenId, cmd.network));
    if (onPool(current)) return await sellOnPool(deps, cmd, paid, key, current, pull);
    return await applyInUnitOfWork(deps, paid, async (stores, now) => {
      const token = await loadSellableToken(stores, cmd.tokenId, cmd.network, true);
      if (onPool(token)) throw new TokenGraduated(token.tokenId); // graduated meanwhile: the tokens go back, the fee is refunded
      const q = quoteSell(token.params, token.curve, cmd.tokens);
      if (cmd.minUsdOut !== undefined && q.usdOut < cmd.minUsdOut) throw slippage(cmd.minUsdOut, q.usdOut);
      const held = (await stores.positions.get(token.network, cmd.seller, token.tokenId)) ?? emptyPosition(token.network, cmd.seller, token.tokenId, now);
      const position = applySell(withTransfersIn(held, cmd.tokens, now), cmd.tokens, q.usdOut, now);
      const written = await recordTrade(deps, stores, {
        token,
        curve: q.after,
        position,
        side: 'sell',
        usdAmount: q.grossUsd,
        feeUsd: q.feeUsd,
        tokenAmount: cmd.tokens,
        payment: paid?.payment,
        now,
      });
      const payout = await stores.payouts.enqueue(
        newPayout({
          payoutId: deps.ids.next('pout'),
          network: token.network,
          wallet: cmd.seller,
          ...sellProceeds(q.usdOut),
          reason: 'sell',
          sourceId: written.trade.tradeId,
          now,
        }),
      );
      return {
        tokenId: token.tokenId,
        tokensSold: formatTokens(cmd.tokens),
        usdReceived: formatUsd(q.usdOut),
        feeUsd: formatUsd(q.feeUsd),
        priceUsd: averagePriceUsd(q.usdOut, cmd.tokens),
        spotPriceUsd: spotPriceUsd(written.token.curve),
        position: positionView(position, written.token),
        trade: tradeView(written.trade),
        payout: payoutView(payout),
        pullTx: pull.txHash,
      };
    });
  } catch (e) {
    // The tokens are in custody but the sell is refused now (the curve moved past minUsdOut, the
    // token graduated): they go back to the seller. Queued once per payment, however often this
    // runs; the payment flow refunds the fee.
    if (e instanceof DomainError && e.code !== 'INTERNAL_ERROR') await returnTokens(deps, cmd, key);
    throw e;
  }
}

async function returnTokens(deps: AppDeps, cmd: SellCommand, key: string): Promise<void> {
  await deps.uow.transaction((stores) =>
    stores.deliveries.enqueue(
      newDelivery({
        deliveryId: deps.ids.next('dlv'),
        network: cmd.network,
        tokenId: cmd.tokenId,
        wallet: cmd.seller,
        amount: cmd.tokens,
        sourceId: `return:${key}`,
        now: deps.clock.now(),
      }),
    ),
  );
}

/**
 * Custody's pull of the seller's tokens, exactly once per payment: the signed transaction is
 * recorded before it is broadcast, a retry broadcasts the same one, and one that can never be
 * mined (its nonce taken) is signed again — EIP-3009's nonce makes a second pull impossible.
 */
async function pullTokens(deps: AppDeps, cmd: SellCommand, key: string): Promise<TokenPull> {
  const issuer = deps.tokenIssuer;
  const token = await deps.uow.read((s) => loadSellableToken(s, cmd.tokenId, cmd.network));
  const address = deployedAddress(token);
  const sign = async (): Promise<TokenPull> => ({
    paymentId: key,
    network: token.network,
    tokenId: token.tokenId,
    ...(await issuer.prepareReceive(token.network, address, cmd.authorization)),
    createdAt: deps.clock.now(),
  });
  let pull = await deps.uow.read((s) => s.pulls.get(key));
  if (!pull) {
    const signed = await sign();
    pull = await deps.uow.transaction((s) => s.pulls.record(signed));
    if (pull.txHash !== signed.txHash) issuer.release(token.network);
  }
  const deadline = Date.now() + deps.settings.pullWaitMs;
  for (let delay = 50; ; delay = Math.min(delay * 2, 500)) {
    await issuer.broadcast(token.network, pull.rawTx).catch(() => undefined); // the status below tells
    const status = await issuer.status(token.network, pull.txHash, pull.rawTx);
    if (status === 'confirmed') return pull;
    if (status === 'reverted') {
      throw new TokenAuthorizationInvalid(
        'pull_failed',
        'The tokens could not be pulled with this authorization (moved away, used, cancelled or expired); nothing was taken.',
      );
    }
    if (status === 'dropped') {
      const resigned = await sign();
      if (await deps.uow.transaction((s) => s.pulls.replace(resigned, pull!.txHash))) pull = resigned;
      else {
        issuer.release(token.network);
        pull = (await deps.uow.read((s) => s.pulls.get(key)))!;
      }
      continue;
    }
    if (Date.now() >= deadline) throw new PullPending(key, pull.txHash);
    await new Promise((r) => setTimeout(r, delay));
  }
}

/**
 * A sell of a graduated token (SPEC §14): the tokens are pulled as on the curve, then custody
 * swaps them for USDC on the pool — amountOutMin from the caller's minUsdOut (grossed up by our
 * fee), or the pool's output now less the default slippage — and the proceeds less our fee are
 * paid out. A swap refused or reverted sends the tokens back and refunds the fee (sellToken).
 */
async function sellOnPool(deps: AppDeps, cmd: SellCommand, paid: Paid<SellResult> | undefined, key: string, token: Token, pull: TokenPull): Promise<SellResult> {
  const dex = dexOf(deps);
  const feeBps = token.params.feeBps;
  let bound: bigint;
  if (cmd.minUsdOut !== undefined) bound = grossFor(cmd.minUsdOut, feeBps);
  else {
    const { quoter, ref } = venueOf(deps, token, 'sell');
    const q = await quoter.price({ side: 'sell', params: token.params, curve: token.curve, ...(ref ? { token: ref } : {}), tokens: cmd.tokens });
    bound = minOut(q.usdAmount + q.feeUsd, deps.settings.defaultSlippageBps);
  }
  const swap = await swapOnPool(deps, key, token, { side: 'sell', amountIn: cmd.tokens, amountOutMin: bound, describe: formatUsd });
  const grossUsd = swap.amountOut;
  const feeUsd = feeOn(grossUsd, feeBps);
  const usdOut = grossUsd - feeUsd;
  const pool = await dex.reserves(token.network, token.address!).catch(() => null);
  return applyInUnitOfWork(deps, paid, async (stores, now) => {
    const locked = await loadToken(stores, token.tokenId, true);
    const held = (await stores.positions.get(locked.network, cmd.seller, locked.tokenId)) ?? emptyPosition(locked.network, cmd.seller, locked.tokenId, now);
    const position = applySell(withTransfersIn(held, cmd.tokens, now), cmd.tokens, usdOut, now);
    const written = await recordTrade(deps, stores, {
      token: locked,
      curve: null,
      position,
      side: 'sell',
      usdAmount: grossUsd,
      feeUsd,
      tokenAmount: cmd.tokens,
      payment: paid?.payment,
      now,
      venue: 'uniswap-v2',
    });
    const payout = await stores.payouts.enqueue(
      newPayout({
        payoutId: deps.ids.next('pout'),
        network: locked.network,
        wallet: cmd.seller,
        ...sellProceeds(usdOut),
        reason: 'sell',
        sourceId: written.trade.tradeId,
        now,
      }),
    );
    return {
      tokenId: locked.tokenId,
      tokensSold: formatTokens(cmd.tokens),
      usdReceived: formatUsd(usdOut),
      feeUsd: formatUsd(feeUsd),
      priceUsd: averagePriceUsd(usdOut, cmd.tokens),
      spotPriceUsd: pool ? averagePriceUsd(pool.usd, pool.tokens) : spotPriceUsd(locked.curve),
      position: positionView(position, written.token),
      trade: tradeView(written.trade),
      payout: payoutView(payout),
      pullTx: pull.txHash,
    };
  });
}
