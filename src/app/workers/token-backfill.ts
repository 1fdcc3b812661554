/**
 * Tokens launched before tokens went on chain (API spec 1.0) live only in the ledger. On start,
 * each gets the address its contract will have, a deployment, and a delivery of every holder's
 * ledger balance — so after an upgrade every token ends up a real ERC-20 in its holders'
 * wallets, exactly as if it had been created on chain. Idempotent: a token is taken under its
 * row lock only while it has no address, and every delivery's source id is unique per
 * (token, wallet), so a crash half-way and a second process running it too change nothing.
 */
import { newDelivery } from '../../domain/delivery.js';
import { newDeployment } from '../../domain/deployment.js';
import { withAddress } from '../../domain/token.js';
import type { Clock } from '../../ports/clock.js';
import type { IdGenerator } from '../../ports/id-generator.js';
import type { Logger } from '../../ports/logger.js';
import type { TokenIssuer } from '../../ports/token-issuer.js';
import type { UnitOfWork } from '../../ports/unit-of-work.js';

export interface TokenBackfillDeps {
  uow: UnitOfWork;
  tokenIssuer: TokenIssuer;
  ids: IdGenerator;
  clock: Clock;
  logger: Logger;
}

/** More holders than any pre-1.1 token had; a token with more is logged and left for a second run. */
const MAX_HOLDERS = 100_000;

/** Backfills every token without an address; returns how many it took on chain. */
export async function backfillTokens(deps: TokenBackfillDeps, batch = 100): Promise<number> {
  let done = 0;
  for (;;) {
    const tokens = await deps.uow.run((s) => s.tokens.listWithoutAddress(batch));
    if (tokens.length === 0) return done;
    for (const candidate of tokens) {
      const address = deps.tokenIssuer.predictAddress(candidate.network, {
        tokenId: candidate.tokenId,
        name: candidate.name,
        symbol: candidate.symbol,
        totalSupply: candidate.params.totalSupply,
      });
      const deliveries = await deps.uow.transaction(async (stores) => {
        const token = await stores.tokens.getForUpdate(candidate.tokenId);
        if (!token || token.address !== null) return null; // another process took it
        const now = deps.clock.now();
        await stores.tokens.update(withAddress(token, address));
        await stores.deployments.enqueue(newDeployment({ deploymentId: deps.ids.next('dep'), network: token.network, tokenId: token.tokenId, address, now }));
        const holders = await stores.positions.holders(token.tokenId, MAX_HOLDERS);
        if (holders.length === MAX_HOLDERS) deps.logger.error('token backfill: holders cut off', { tokenId: token.tokenId, max: MAX_HOLDERS });
        let n = 0;
        for (const p of holders.filter((h) => h.balance > 0n)) {
          await stores.deliveries.enqueue(
            newDelivery({
              deliveryId: deps.ids.next('dlv'),
              network: token.network,
              tokenId: token.tokenId,
              wallet: p.wallet,
              amount: p.balance,
              sourceId: `backfill:${token.tokenId}:${p.wallet.toLowerCase()}`,
              now,
            }),
          );
          n += 1;
        }
        return n;
      });
      if (deliveries !== null) {
        done += 1;
        deps.logger.info('token backfilled on chain', { tokenId: candidate.tokenId, address, deliveries });
      }
    }
  }
}
