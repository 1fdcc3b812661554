/**
 * The two outboxes of tokens on chain (docs/api.md "Tokens on chain"), on the outbox engine (outbox-worker.ts):
 *
 * - deployments: custody calls the LaunchFactory for each created token; once mined the token is
 *   DEPLOYED (event `token.deployed`). A token already at its address is confirmed without a
 *   transaction.
 * - deliveries: custody transfers each buy's tokens to the buyer, once the token is DEPLOYED
 *   (before that a transfer to an address without code would be "mined" and move nothing);
 *   events `delivery.sent`, `delivery.confirmed`, `delivery.failed`. Those ready together go
 *   out in batches first (delivery-batcher.ts); what is left, one transaction each.
 */
import type { Delivery } from '../../domain/delivery.js';
import type { Deployment } from '../../domain/deployment.js';
import type { Token } from '../../domain/token.js';
import type { IdGenerator } from '../../ports/id-generator.js';
import type { TokenIssuer } from '../../ports/token-issuer.js';
import type { Stores, UnitOfWork } from '../../ports/unit-of-work.js';
import { deliveryView } from '../kit/views.js';
import { DeliveryBatcher, type DeliveryBatcherDeps } from './delivery-batcher.js';
import { OutboxWorker, outboxStoreOf, type OutboxWorkerDeps } from './outbox-worker.js';
import { refundUndeliverable } from './undeliverable-token.js';

type Deps<T extends Deployment | Delivery> = Omit<OutboxWorkerDeps<T>, 'kind' | 'sender'> & { issuer: TokenIssuer; uow: UnitOfWork; ids?: IdGenerator };

async function tokenOf(uow: UnitOfWork, tokenId: string) {
  const token = await uow.run((s) => s.tokens.get(tokenId));
  if (!token) throw new Error(`unknown token ${tokenId}`);
  return token;
}

async function markDeployment(stores: Stores, d: Deployment, state: 'DEPLOYED' | 'FAILED', now: Date, reason: string | null = null) {
  const token = await stores.tokens.getForUpdate(d.tokenId);
  if (!token) throw new Error(`unknown token ${d.tokenId}`);
  const deployment = { state, txHash: d.txHash, blockNumber: d.blockNumber };
  await stores.tokens.update({ ...token, deployment });
  await stores.events.append({
    type: state === 'DEPLOYED' ? 'token.deployed' : 'token.deployment_failed',
    network: token.network,
    tokenId: token.tokenId,
    data: { tokenId: token.tokenId, address: d.address, txHash: d.txHash, blockNumber: d.blockNumber?.toString() ?? null, ...(reason ? { reason } : {}) },
    createdAt: now,
  });
  return token;
}

/** Where the token would land if custody deployed it now, when that is not its announced address. */
function misplaced(issuer: TokenIssuer, token: Token, d: Deployment): string | null {
  const spec = { tokenId: token.tokenId, name: token.name, symbol: token.symbol, totalSupply: token.params.totalSupply };
  const predicted = issuer.predictAddress(d.network, spec);
  return predicted.toLowerCase() === d.address.toLowerCase() ? null : predicted;
}

export class DeploymentWorker extends OutboxWorker<Deployment> {
  constructor(deps: Deps<Deployment>) {
    super({
      ...deps,
      sender: deps.issuer,
      kind: {
        ...outboxStoreOf<Deployment>('deployment', (d) => d.deploymentId, (s) => s.deployments),
        alreadyDone: (d) => deps.issuer.isDeployed(d.network, d.address),
        // The LaunchFactory, custody or LaunchToken bytecode changed since the address was
        // announced: no deployment from here can ever fill it (docs/decisions/0032).
        async impossible(d) {
          const at = misplaced(deps.issuer, await tokenOf(deps.uow, d.tokenId), d);
          return at ? `would deploy at ${at}, not at its announced ${d.address} (LaunchFactory, custody or LaunchToken bytecode changed)` : null;
        },
        async prepare(d) {
          const token = await tokenOf(deps.uow, d.tokenId);
          const spec = { tokenId: token.tokenId, name: token.name, symbol: token.symbol, totalSupply: token.params.totalSupply };
          // The address was announced at creation: deploy only what lands exactly there.
          const predicted = deps.issuer.predictAddress(d.network, spec);
          if (predicted.toLowerCase() !== d.address.toLowerCase()) {
            throw new Error(`token ${d.tokenId} would deploy at ${predicted}, not at its announced ${d.address} (factory or custody changed)`);
          }
          return deps.issuer.prepareDeploy(d.network, spec);
        },
        minedDetails: async (d) => ({ blockNumber: await deps.issuer.blockOf(d.network, d.txHash!) }),
        onConfirmed: async (stores, d, now) => void (await markDeployment(stores, d, 'DEPLOYED', now)),
        async onFailed(stores, d, now) {
          const token = await markDeployment(stores, d, 'FAILED', now, d.lastError);
          // Never deployable here: what was paid for it goes back (undeliverable-token.ts).
          if (misplaced(deps.issuer, token, d)) await refundUndeliverable(stores, token, deps, now);
        },
      },
    });
  }
}

const deliveryEvent = (type: 'delivery.sent' | 'delivery.confirmed' | 'delivery.failed') => async (stores: Stores, d: Delivery, now: Date) => {
  await stores.events.append({ type, network: d.network, tokenId: d.tokenId, data: { delivery: deliveryView(d) }, createdAt: now });
};

export interface DeliveryWorkerDeps extends Deps<Delivery> {
  /** Batch ids; without them, each delivery is sent alone. */
  ids?: IdGenerator;
  /** Most deliveries one custody transaction carries (below 2, the default: each is sent alone). */
  batchMax?: number;
  /** Test-only seams of the batches. */
  batchHooks?: Pick<DeliveryBatcherDeps, 'afterRecord' | 'afterBroadcast'>;
}

export class DeliveryWorker extends OutboxWorker<Delivery> {
  /** Sends the deliveries ready together as one transaction (docs/decisions/0035); null: each alone. */
  readonly batches: DeliveryBatcher | null;

  constructor(deps: DeliveryWorkerDeps) {
    super({
      ...deps,
      sender: deps.issuer,
      kind: {
        ...outboxStoreOf<Delivery>('delivery', (d) => d.deliveryId, (s) => s.deliveries),
        async prepare(d) {
          const token = await tokenOf(deps.uow, d.tokenId);
          if (token.deployment.state !== 'DEPLOYED' || !token.address) return null; // waits for its contract
          return deps.issuer.prepareTransfer(d.network, token.address, d.wallet, d.amount);
        },
        onSent: deliveryEvent('delivery.sent'),
        onConfirmed: deliveryEvent('delivery.confirmed'),
        onFailed: deliveryEvent('delivery.failed'),
      },
    });
    const { uow, clock, logger, issuer, ids, metrics, batchMax = 0 } = deps;
    const { maxAttempts, backoffBaseMs, backoffMaxMs, confirmPollMs, stuckAfterMs } = deps;
    this.batches =
      ids && batchMax >= 2
        ? new DeliveryBatcher({ uow, clock, logger, issuer, ids, maxBatch: batchMax, maxAttempts, backoffBaseMs, backoffMaxMs, confirmPollMs, stuckAfterMs, ...(metrics ? { metrics } : {}), ...deps.batchHooks })
        : null;
  }

  /** The batches first (follow, then send what is ready together), then each delivery left alone. */
  override async runOnce(limit = 20): Promise<number> {
    return (this.batches ? await this.batches.runOnce() : 0) + (await super.runOnce(limit));
  }
}
