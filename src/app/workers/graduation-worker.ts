/**
 * Graduation → DEX pool (SPEC §14) on the outbox engine (outbox-worker.ts): for each graduated
 * token custody approves the router for the token, then for USDC, then adds the liquidity with
 * the LP tokens burned; each step is an outbox item queued when the one before it is mined
 * (src/domain/graduation.ts). Once addLiquidity is mined the token's pool is CREATED (event
 * `token.pool_created`); a step that exhausts its retries leaves it FAILED (`token.pool_failed`).
 *
 * Approvals are for the largest amount (custody's own router allowance, which later swaps share),
 * so tokens graduating side by side never overwrite each other's; an approval already in place is
 * confirmed without a transaction. A crash anywhere resumes from the recorded step: a signed
 * addLiquidity is broadcast again, never signed twice while it can still be mined.
 */
import { BURN_ADDRESS, newGraduationStep, nextGraduationStep, type Graduation } from '../../domain/graduation.js';
import type { DexRouter } from '../../ports/dex-router.js';
import type { IdGenerator } from '../../ports/id-generator.js';
import type { Stores, UnitOfWork } from '../../ports/unit-of-work.js';
import { OutboxWorker, type OutboxWorkerDeps } from './outbox-worker.js';

export const MAX_UINT256 = 2n ** 256n - 1n;
/** How long a signed addLiquidity stays valid: a re-broadcast after that reverts and is signed again. */
export const GRADUATION_DEADLINE_SECONDS = 20n * 60n;

type Deps = Omit<OutboxWorkerDeps<Graduation>, 'kind' | 'sender'> & { dex: DexRouter; ids: IdGenerator; uow: UnitOfWork };

async function tokenOf(uow: UnitOfWork, tokenId: string) {
  const token = await uow.read((s) => s.tokens.get(tokenId));
  if (!token) throw new Error(`unknown token ${tokenId}`);
  return token;
}

async function markPool(stores: Stores, g: Graduation, state: 'CREATED' | 'FAILED', now: Date) {
  const token = await stores.tokens.getForUpdate(g.tokenId);
  if (!token) throw new Error(`unknown token ${g.tokenId}`);
  const pool = { dex: 'uniswap-v2' as const, state, address: g.pair, txHash: g.txHash };
  await stores.tokens.update({ ...token, pool });
  await stores.events.append({
    type: state === 'CREATED' ? 'token.pool_created' : 'token.pool_failed',
    network: token.network,
    tokenId: token.tokenId,
    data: {
      tokenId: token.tokenId,
      pool: { ...pool, tokenReserve: g.tokenAmount.toString(), usdReserve: g.usdAmount.toString() },
      ...(state === 'FAILED' ? { step: g.step, error: g.lastError } : {}),
    },
    createdAt: now,
  });
}

export class GraduationWorker extends OutboxWorker<Graduation> {
  constructor(deps: Deps) {
    const { dex } = deps;
    const asset = async (g: Graduation) => (g.step === 'approve-usd' ? dex.usdc(g.network) : (await tokenOf(deps.uow, g.tokenId)).address!);
    const needed = (g: Graduation) => (g.step === 'approve-usd' ? g.usdAmount : g.tokenAmount);
    super({
      ...deps,
      sender: dex,
      kind: {
        name: 'graduation',
        idOf: (g) => g.graduationId,
        due: (stores, now, limit) => stores.graduations.due(now, limit),
        update: (stores, next, from) => stores.graduations.update(next, from),
        async alreadyDone(g) {
          if (g.step === 'add-liquidity' || !dex.supports(g.network)) return false;
          const token = await tokenOf(deps.uow, g.tokenId);
          if (token.deployment.state !== 'DEPLOYED') return false;
          return (await dex.allowance(g.network, await asset(g))) >= needed(g);
        },
        async prepare(g) {
          const token = await tokenOf(deps.uow, g.tokenId);
          // The token's contract first; and a network without a router keeps the pool waiting.
          if (token.deployment.state !== 'DEPLOYED' || !token.address || !dex.supports(g.network)) return null;
          if (g.step !== 'add-liquidity') return dex.prepareApprove(g.network, await asset(g), MAX_UINT256);
          const now = BigInt(Math.floor(deps.clock.now().getTime() / 1000));
          return dex.prepareAddLiquidity(g.network, {
            token: token.address,
            tokenAmount: g.tokenAmount,
            usdAmount: g.usdAmount,
            to: BURN_ADDRESS,
            deadline: now + GRADUATION_DEADLINE_SECONDS,
          });
        },
        async minedDetails(g) {
          if (g.step !== 'add-liquidity') return {};
          return { pair: await dex.pairOf(g.network, (await tokenOf(deps.uow, g.tokenId)).address!) };
        },
        async onConfirmed(stores, g, now) {
          const next = nextGraduationStep(g.step);
          if (next === null) return markPool(stores, g, 'CREATED', now);
          await stores.graduations.enqueue(
            newGraduationStep({ graduationId: deps.ids.next('grad'), network: g.network, tokenId: g.tokenId, step: next, tokenAmount: g.tokenAmount, usdAmount: g.usdAmount, now }),
          );
        },
        onFailed: (stores, g, now) => markPool(stores, g, 'FAILED', now),
      },
    });
  }
}
