/**
 * Graduation → DEX pool on the outbox engine (outbox-worker.ts): for each graduated token custody
 * approves the router (for the pool trades that follow) and the LaunchFactory for the token and
 * USDC, then the factory seeds the pair in one transaction with the LP tokens burned, whatever an
 * outsider put in the pair first (src/domain/graduation.ts, decision 0023). Once the seed is mined
 * the token's pool is CREATED (event `token.pool_created`); a step that exhausts its retries
 * leaves it FAILED (`token.pool_failed`) and the curve open for sells.
 *
 * Approvals are for the largest amount (custody's own allowance, which later swaps share), so
 * tokens graduating side by side never overwrite each other's; an approval already in place is
 * confirmed without a transaction. A crash anywhere resumes from the recorded step: a signed seed
 * is broadcast again, never signed twice while it can still be mined.
 */
import { approvalOf, BURN_ADDRESS, newGraduationStep, nextGraduationStep, type Graduation } from '../../domain/graduation.js';
import type { DexRouter } from '../../ports/dex-router.js';
import type { IdGenerator } from '../../ports/id-generator.js';
import type { Stores, UnitOfWork } from '../../ports/unit-of-work.js';
import { OutboxWorker, type OutboxWorkerDeps } from './outbox-worker.js';

export const MAX_UINT256 = 2n ** 256n - 1n;

type Deps = Omit<OutboxWorkerDeps<Graduation>, 'kind' | 'sender'> & { dex: DexRouter; ids: IdGenerator; uow: UnitOfWork };

async function tokenOf(uow: UnitOfWork, tokenId: string) {
  const token = await uow.run((s) => s.tokens.get(tokenId));
  if (!token) throw new Error(`unknown token ${tokenId}`);
  return token;
}

async function markPool(stores: Stores, g: Graduation, state: 'CREATED' | 'FAILED', now: Date) {
  const token = await stores.tokens.getForUpdate(g.tokenId);
  if (!token) throw new Error(`unknown token ${g.tokenId}`);
  const pool = { dex: 'uniswap-v2' as const, state, address: g.pair, txHash: g.txHash };
  await stores.tokens.update({ ...token, pool });
  const seeded = g.seeded;
  await stores.events.append({
    type: state === 'CREATED' ? 'token.pool_created' : 'token.pool_failed',
    network: token.network,
    tokenId: token.tokenId,
    data: {
      tokenId: token.tokenId,
      pool: { ...pool, tokenReserve: (seeded?.tokenReserve ?? g.tokenAmount).toString(), usdReserve: (seeded?.usdReserve ?? g.usdAmount).toString() },
      // A pair someone filled first: what the seed locked and gave back (decision 0023).
      ...(seeded && (seeded.tokensLocked > 0n || seeded.usdReturned > 0n)
        ? { tokensLocked: seeded.tokensLocked.toString(), usdReturned: seeded.usdReturned.toString() }
        : {}),
      ...(state === 'FAILED' ? { step: g.step, error: g.lastError, curveOpenForSells: true } : {}),
    },
    createdAt: now,
  });
}

export class GraduationWorker extends OutboxWorker<Graduation> {
  constructor(deps: Deps) {
    const { dex } = deps;
    // What an approval step approves: the launched token or USDC, for the router or the seeder.
    const approval = async (g: Graduation) => {
      const a = approvalOf(g.step)!;
      return {
        asset: a.asset === 'usd' ? dex.usdc(g.network) : (await tokenOf(deps.uow, g.tokenId)).address!,
        spender: a.spender === 'seeder' ? dex.seeder(g.network) : dex.router(g.network),
        needed: a.asset === 'usd' ? g.usdAmount : g.tokenAmount,
      };
    };
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
          const { asset, spender, needed } = await approval(g);
          return (await dex.allowance(g.network, asset, spender)) >= needed;
        },
        async prepare(g) {
          const token = await tokenOf(deps.uow, g.tokenId);
          // The token's contract first; and a network without a router keeps the pool waiting.
          if (token.deployment.state !== 'DEPLOYED' || !token.address || !dex.supports(g.network)) return null;
          if (g.step !== 'add-liquidity') {
            const { asset, spender } = await approval(g);
            return dex.prepareApprove(g.network, asset, spender, MAX_UINT256);
          }
          return dex.prepareSeedPool(g.network, { token: token.address, tokenAmount: g.tokenAmount, usdAmount: g.usdAmount, lockTo: BURN_ADDRESS });
        },
        async minedDetails(g) {
          if (g.step !== 'add-liquidity') return {};
          const seeded = await dex.seedOutcome(g.network, g.txHash!);
          if (!seeded) return { pair: await dex.pairOf(g.network, (await tokenOf(deps.uow, g.tokenId)).address!) };
          return { pair: seeded.pair, seeded };
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
