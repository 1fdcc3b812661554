/**
 * Custody's swap on a graduated token's Uniswap v2 pool for one paid trade, exactly once per
 * payment (exactly-once-sender.ts). The caller's bound is checked against the pool before
 * anything is signed: a swap that could not meet it is never sent.
 *
 *   bound unreachable now → SLIPPAGE_EXCEEDED, nothing sent (the payment flow refunds)
 *   mined                 → what it moved (from the pair's Swap event)
 *   reverted              → SLIPPAGE_EXCEEDED: the pool moved past the bound (or the deadline passed); nothing moved
 *   not mined yet         → SwapPending: the payment stays SETTLED (202), the reconciler returns to it
 */
import { ServiceUnavailable, SlippageExceeded, type DomainError } from '../../domain/errors.js';
import type { Network } from '../../domain/network.js';
import { getAmountOut } from '../../domain/pool.js';
import type { Token } from '../../domain/token.js';
import type { CustodyIntent } from '../../ports/custody-intent-store.js';
import type { SwapOutcome } from '../../ports/dex-router.js';
import { isNotSent, notSent } from '../../ports/custody-transaction-store.js';
import type { PoolSwap } from '../../ports/pool-swap-store.js';
import type { AppDeps } from '../kit/deps.js';
import { answerRecorded, recordOf, sendExactlyOnce, type ExactlyOnce } from './exactly-once-sender.js';

/** How long a signed swap stays valid on chain. */
export const SWAP_DEADLINE_SECONDS = 300n;

export class SwapPending extends Error {
  constructor(key: string, txHash: string) {
    super(`the pool swap of payment ${key} (${txHash}) is not mined yet`);
    this.name = 'SwapPending';
  }
}

export interface PoolSwapArgs {
  side: 'buy' | 'sell';
  amountIn: bigint;
  amountOutMin: bigint;
  /** A buy's terms, recorded with the swap (decision 0061): its gross USD (`amountIn` is all but our fee), and `amountOutMin`. */
  grossUsd?: bigint | undefined;
  /** Formats amounts for the caller's error (dollars or tokens). */
  describe: (amount: bigint) => string;
}

export function dexOf(deps: Pick<AppDeps, 'dex'>) {
  if (!deps.dex) throw new ServiceUnavailable('Trading through the pool is not available on this deployment.', 60);
  return deps.dex;
}

/** What a swap is signed from; an intent carries it as JSON (amounts as decimal strings). */
interface SwapRequest {
  tokenId: string;
  tokenIn: string;
  tokenOut: string;
  amountIn: bigint;
  amountOutMin: bigint;
  grossUsd?: bigint | undefined;
}

const encode = (r: SwapRequest) => JSON.stringify({ ...r, amountIn: r.amountIn.toString(), amountOutMin: r.amountOutMin.toString(), grossUsd: r.grossUsd?.toString() });

function decode(json: string): SwapRequest {
  const r = JSON.parse(json) as Omit<SwapRequest, 'amountIn' | 'amountOutMin' | 'grossUsd'> & { amountIn: string; amountOutMin: string; grossUsd?: string };
  return { ...r, amountIn: BigInt(r.amountIn), amountOutMin: BigInt(r.amountOutMin), grossUsd: r.grossUsd === undefined ? undefined : BigInt(r.grossUsd) };
}

/** The swap as custody signs it: valid SWAP_DEADLINE_SECONDS from its signature, proceeds to custody. */
function swapOf(deps: Pick<AppDeps, 'clock' | 'dex'>, key: string, network: Network, r: SwapRequest, refused: (got: bigint | null, why: string) => Error): ExactlyOnce<PoolSwap> {
  const dex = dexOf(deps);
  return {
    key,
    network,
    tokenId: r.tokenId,
    chain: dex,
    store: (s) => s.swaps,
    async sign() {
      const now = BigInt(Math.floor(deps.clock.now().getTime() / 1000));
      const prepared = await dex.prepareSwap(network, {
        tokenIn: r.tokenIn,
        tokenOut: r.tokenOut,
        amountIn: r.amountIn,
        amountOutMin: r.amountOutMin,
        to: dex.custody(network),
        deadline: now + SWAP_DEADLINE_SECONDS,
      });
      const buy = r.grossUsd === undefined ? {} : { buy: { grossUsd: r.grossUsd, amountIn: r.amountIn, minTokensOut: r.amountOutMin } };
      return { paymentId: key, network, tokenId: r.tokenId, ...prepared, ...buy, createdAt: deps.clock.now() };
    },
    reverted: () => refused(0n, 'The pool moved past the bound before the swap was mined; nothing was swapped.'),
    pending: (txHash) => new SwapPending(key, txHash),
    intent: { kind: 'swap', tokenId: r.tokenId, request: encode(r) },
  };
}

/**
 * Records `refusal` in the swap's place (decision 0059), unless a swap or another copy's refusal
 * is recorded there already. Answers what stands: a refusal — this one, or the one recorded
 * before it, in its words (decision 0063) — after which no copy of the trade swaps; or the swap
 * recorded instead, which decides.
 */
export async function refuseSwap(deps: Pick<AppDeps, 'uow' | 'clock'>, key: string, network: Network, tokenId: string, refusal: DomainError): Promise<PoolSwap | Error> {
  const ours = notSent(key, network, tokenId, deps.clock.now(), recordOf(refusal));
  const stands = await deps.uow.transaction((s) => s.swaps.refuse(ours));
  if (!isNotSent(stands)) return stands;
  return stands === ours ? refusal : answerRecorded(stands, () => refusal);
}

/** Whether a swap (not a refusal) is recorded for the payment: custody has sent its trade. */
export async function swapRecorded(deps: Pick<AppDeps, 'uow'>, key: string): Promise<boolean> {
  const swap = await deps.uow.run((s) => s.swaps.get(key));
  return swap !== null && !isNotSent(swap);
}

/** The swap an intent asks for, as custody's signer signs it (custody-intents.ts). */
export const swapOfIntent = (deps: Pick<AppDeps, 'clock' | 'dex'>, intent: CustodyIntent): ExactlyOnce<PoolSwap> =>
  swapOf(deps, intent.paymentId, intent.network, decode(intent.request), (_got, why) => new SlippageExceeded(why, '', ''));

/** What the swap moved, its hash, and — a buy's — the terms recorded with it. */
export async function swapOnPool(deps: Pick<AppDeps, 'uow' | 'clock' | 'dex' | 'settings' | 'custody' | 'logger' | 'metrics'>, key: string, token: Token, args: PoolSwapArgs): Promise<SwapOutcome & Pick<PoolSwap, 'txHash' | 'buy'>> {
  const dex = dexOf(deps);
  const network = token.network;
  const address = token.address!;
  const [tokenIn, tokenOut] = args.side === 'buy' ? [dex.usdc(network), address] : [address, dex.usdc(network)];
  const refused = (got: bigint | null, why: string) => new SlippageExceeded(why, args.describe(args.amountOutMin), got === null ? '' : args.describe(got));
  const swap = await sendExactlyOnce(deps, {
    ...swapOf(deps, key, network, { tokenId: token.tokenId, tokenIn, tokenOut, amountIn: args.amountIn, amountOutMin: args.amountOutMin, grossUsd: args.grossUsd }, refused),
    beforeSigning: {
      async check() {
        const pool = await dex.reserves(network, address).catch((e: unknown) => {
          throw new ServiceUnavailable('The pool could not be read; try again shortly.', 5, undefined, { cause: e });
        });
        if (!pool) throw new ServiceUnavailable('The pool has no liquidity.', 60);
        const out = args.side === 'buy' ? getAmountOut(args.amountIn, pool.usd, pool.tokens) : getAmountOut(args.amountIn, pool.tokens, pool.usd);
        if (out < args.amountOutMin) throw refused(out, 'The pool has moved: the swap would give less than the bound; it was not sent.');
      },
      // A copy of this trade refused a moment earlier (decisions 0059, 0063): its refusal, as it said it.
      refusedBefore: (recorded) => answerRecorded(recorded, () => refused(null, 'The pool had moved past the bound when the swap was checked; it was not sent.')),
    },
  });
  const outcome = await dex.swapOutcome(network, swap.txHash, { tokenIn, tokenOut });
  if (!outcome) throw new Error(`swap ${swap.txHash} is mined but shows no Swap event`);
  return { ...outcome, txHash: swap.txHash, buy: swap.buy };
}
