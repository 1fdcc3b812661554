/**
 * Selling (docs/api.md "token_sell"), on the token's venue (trading/venues: its curve, its pool
 * once graduated, its curve again when the pool failed). The seller's tokens are on chain: the
 * sell carries their EIP-3009 `ReceiveWithAuthorization` to custody, checked in full before any
 * payment is asked for. Once the $0.01 fee is settled, custody pulls the tokens (exactly once:
 * custody/token-pull.ts); when the pull is mined, the venue executes the sell and the trade, the
 * position and the payout of the proceeds (in USDC, whatever asset paid the fee) commit in one
 * transaction.
 *
 *   pull mined        → trade + payout (+ payment APPLIED)
 *   pull reverted     → TOKEN_AUTHORIZATION_INVALID: the fee is refunded, nothing was pulled
 *   pull not mined yet→ the payment stays SETTLED (202); the reconciler comes back to it
 *   an outage after   → the same: nothing is given back (a swap may be on its way)
 *   mined but refused → the tokens go back to the seller (a delivery), queued in the transaction
 *                       that refunds the fee — never when another copy of the sell applied it
 */
import { readChain } from '../kit/availability.js';
import { newDelivery } from '../../domain/delivery.js';
import { DomainError, InsufficientBalance, ServiceUnavailable, TokenAuthorizationInvalid } from '../../domain/errors.js';
import { formatTokens } from '../../domain/money.js';
import type { Network } from '../../domain/network.js';
import type { Token } from '../../domain/token.js';
import { isNotSent } from '../../ports/custody-transaction-store.js';
import type { Stores } from '../../ports/unit-of-work.js';
import { pullTokens } from '../custody/index.js';
import type { AppDeps } from '../kit/deps.js';
import { fundingKey, InterruptedInCustody, RefusedInCustody, type Funding } from '../kit/paid.js';
import { checkedToken, deployedToken, loadToken, onCallerNetwork, tradedToken, type DeployedToken } from './load-token.js';
import { refuseLockedSale } from './locked-sale.js';
import type { SellCommand, SellRequest, SellResult, TradePhase } from './venues/trade-venue.js';
import { venueFor, type VenueDeps } from './venues/venue-for.js';

export type { SellCommand, SellRequest, SellResult } from './venues/trade-venue.js';

/** An authorization must stay usable at least this long when it is checked (docs/api.md "token_sell"). */
export const MIN_AUTHORIZATION_WINDOW_SECONDS = 120n;

const same = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();

/**
 * The checks a sell must pass before a payment is asked for — and, as `apply`, before a settled
 * one is applied by the reconciler. Its pull may be mined by then, so `apply` leaves to the sell
 * what it checks itself once it holds the tokens (where the token trades, the slippage bound): a
 * refusal there sends them back with the fee's refund, where a refusal here would refund the fee
 * and keep them.
 */
export async function checkSell(
  deps: VenueDeps & Pick<AppDeps, 'tokenIssuer' | 'tokenRows'>,
  req: SellRequest,
  seller?: { wallet: string; network: Network },
  phase: TradePhase = 'price',
): Promise<{ network: Network; token: DeployedToken }> {
  const token = deployedToken(
    phase === 'apply'
      ? onCallerNetwork(await deps.uow.run((s) => loadToken(s, req.tokenId)), seller?.network)
      : await checkedToken(deps, req.tokenId, 'sell', seller?.network, phase),
  );
  await checkAuthorization(deps, token, req, seller, phase);
  if (phase === 'apply') return { network: token.network, token };
  // The slippage bound is checked once the seller is known (a 402 asks nothing of it).
  await venueFor(deps, token, 'sell').checkSell(token, req.tokens, seller ? req.minUsdOut : undefined);
  return { network: token.network, token };
}

async function checkAuthorization(
  deps: Pick<AppDeps, 'clock' | 'tokenIssuer'>,
  token: Token & { address: string },
  req: SellRequest,
  seller: { wallet: string } | undefined,
  phase: TradePhase,
): Promise<void> {
  const a = req.authorization;
  const address = token.address;
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
  const [used, balance] = await readChain(token.network, () =>
    Promise.all([deps.tokenIssuer.authorizationState(token.network, address, a.from, a.nonce), deps.tokenIssuer.balanceOf(token.network, address, a.from)]),
  );
  if (used) throw invalid('used', 'The authorization nonce was already used or cancelled.');
  refuseLockedSale(token, a.from, a.value, balance);
  if (balance < a.value) throw new InsufficientBalance(formatTokens(a.value), formatTokens(balance));
}

/** `checked`: the token as `checkSell` read it for this very sell, so the pull need not read it again. */
export async function sellToken(deps: VenueDeps & Pick<AppDeps, 'tokenIssuer'>, cmd: SellCommand, paid?: Funding<SellResult>, checked?: DeployedToken): Promise<SellResult> {
  const key = fundingKey(paid) ?? deps.ids.next('pay');
  const token = checked?.tokenId === cmd.tokenId ? checked : deployedToken(await deps.uow.run((s) => tradedToken(s, cmd.tokenId, 'sell', cmd.network)));
  const pull = await pullTokens(deps, key, token, cmd.authorization);
  try {
    // Where the tokens sell now: the token may have graduated (or its pool opened) since the check.
    const current = await deps.uow.run((s) => tradedToken(s, cmd.tokenId, 'sell', cmd.network));
    return await venueFor(deps, current, 'sell').sell(current, cmd, { key, pullTx: pull.txHash }, paid);
  } catch (e) {
    if (!(e instanceof DomainError) || e.code === 'INTERNAL_ERROR') throw e;
    // An outage (the pool's RPC, the database) is no refusal: a swap may be on its way, so nothing
    // is given back; the payment stays SETTLED (202) and the reconciler finishes the sell.
    if (e instanceof ServiceUnavailable) throw new InterruptedInCustody(key, e);
    // The tokens are in custody but the sell is refused now (the price moved past minUsdOut, the
    // token graduated): they go back to the seller, given back where the refusal is recorded — a
    // held sell (an order) by its owner inside the compare-and-set that fails it, a paid one by
    // the fee's refund inside the payment's compare-and-set. A second copy of the sell (the
    // reconciler's, or the order's) refused after the first sold must not send back tokens
    // already sold: its compare-and-set fails, and nothing is given back.
    if (paid?.key !== undefined) throw new RefusedInCustody(e, 'tokens');
    if (paid?.payment) throw new RefusedInCustody(e, 'tokens', (stores) => queueTokenReturn(deps, stores, cmd, key));
    // Not paid for (a direct call): queued once per key, however often this runs.
    await deps.uow.transaction((stores) => queueTokenReturn(deps, stores, cmd, key));
    throw e;
  }
}

/**
 * A settled sell's pulled tokens, to give back with the refund of a refusal met when its payment
 * is applied again (decision 0061): the pull recorded for it, mined — what it moved, from whom,
 * as its authorization says (not the parsed input's other fields). Null: nothing was pulled —
 * none recorded, refused, reverted, or not mined yet (the chain cannot tell now): a refund then
 * stands beside the pull only once it is seen reverted.
 */
export async function pulledTokens(
  deps: Pick<AppDeps, 'uow' | 'clock' | 'ids' | 'tokenIssuer'>,
  pulled: { network: Network; authorization: Pick<SellCommand['authorization'], 'from' | 'value'> },
  key: string,
): Promise<Pick<RefusedInCustody, 'taken' | 'giveBack'> | null> {
  const pull = await deps.uow.run((s) => s.pulls.get(key));
  if (!pull || isNotSent(pull)) return null;
  if ((await deps.tokenIssuer.status(pulled.network, pull.txHash, pull.rawTx).catch(() => null)) !== 'confirmed') return null;
  const back = { network: pulled.network, tokenId: pull.tokenId, seller: pulled.authorization.from, tokens: pulled.authorization.value };
  return { taken: 'tokens', giveBack: (stores) => queueTokenReturn(deps, stores, back, key) };
}

/** The pulled tokens back to the seller, in the caller's transaction; queued once per key. */
export async function queueTokenReturn(deps: Pick<AppDeps, 'clock' | 'ids'>, stores: Stores, cmd: Pick<SellCommand, 'network' | 'tokenId' | 'seller' | 'tokens'>, key: string): Promise<void> {
  await stores.deliveries.enqueue(
    newDelivery({
      deliveryId: deps.ids.next('dlv'),
      network: cmd.network,
      tokenId: cmd.tokenId,
      wallet: cmd.seller,
      amount: cmd.tokens,
      sourceId: `return:${key}`,
      now: deps.clock.now(),
    }),
  );
}
