/**
 * Whether the dependencies a payment needs answer right now: each network's chain (its RPC) and
 * the facilitator (docs/operations.md, "Health"; decision 0033). One round of probes serves every
 * caller for a second; readiness, /health, the 402 and admission all read it.
 *
 * A request that would ask for a payment asks `usable` first: a 402 only offers networks whose
 * chain answers, and when none does — or the facilitator does not — the answer is 503
 * SERVICE_UNAVAILABLE with Retry-After, before anyone signs. Reading what is known never waits on
 * a probe unless nothing recent is known; a refusal a dead chain may have caused (a verification
 * that failed) asks for a fresh round first (`confirm`), so a client is never told its payment is
 * invalid because a node was down.
 */
import { describeDifferences, identityDifferences, type ChainIdentity } from '../../domain/chain-identity.js';
import { DomainError, ServiceUnavailable } from '../../domain/errors.js';
import type { Network } from '../../domain/network.js';
import type { ChainProbe } from '../../ports/chain-probe.js';
import type { Clock } from '../../ports/clock.js';
import type { Facilitator } from '../../ports/facilitator.js';
import type { Logger } from '../../ports/logger.js';

export type CheckStatus = 'ok' | 'degraded' | 'down';

export interface DependencyStatus {
  /** Each network's chain: `ok` or `down` (a chain that is not the books' is down: nothing sent there reaches them). */
  chains: Partial<Record<Network, 'ok' | 'down'>>;
  /** `degraded`: it answers but supports no payment kind. */
  facilitator: CheckStatus;
  /** Networks whose chain is not the one their books were kept on (docs/decisions/0066), with what differs. */
  foreign?: Partial<Record<Network, string>>;
}

export interface AvailabilityDeps {
  /** Null: no chain to probe (tests over fakes); every network counts as answering. */
  chainProbe: ChainProbe | null;
  facilitator: Facilitator;
  networks: readonly Network[];
  clock: Clock;
  /**
   * Which chain each network's books were kept on, as recorded (app/chain-identity.ts): the rounds
   * compare the chain with it, at most every IDENTITY_EVERY_MS. Absent: not compared.
   */
  identities?: ReadonlyMap<Network, ChainIdentity>;
  /**
   * Records or compares the chain of a network the start could not (its chain did not answer
   * then, or the database failed): asked in a round for a network with no identity yet, as often
   * as a recorded one is compared. Answers the identity that stands (null: still none) and what the
   * chain differs in from it (null: nothing).
   */
  agree?: (network: Network) => Promise<{ recorded: ChainIdentity | null; foreign: string | null }>;
  /** Where a chain found foreign (and back) is reported. */
  logger?: Logger;
}

/** One round answers for this long: a probe hammered by load balancers costs one round a second. */
export const PROBE_CACHE_MS = 1_000;
/** A round older than this is not trusted without a new one (an idle process's first request waits for it). */
const STALE_MS = 10_000;
/** A probe that takes longer than this counts as down. */
const PROBE_TIMEOUT_MS = 2_000;
/** What a 503 for an outage tells a client to wait. */
export const OUTAGE_RETRY_AFTER_SECONDS = 5;
/**
 * A chain's identity is asked again in a round at most this often: three reads (its chain id,
 * block 0, the factory's code) where the rounds' own check is one, and a chain that answers as
 * itself changes identity only when its node is swapped (the chain id, asked every round, catches
 * most of those at once).
 */
export const IDENTITY_EVERY_MS = 30_000;

export class Availability {
  private round: { at: number; status: Promise<DependencyStatus> } | null = null;
  /** Per network: when its identity was last asked in a round, and what it differed in (null: nothing). */
  private readonly identityChecks = new Map<Network, { at: number; foreign: string | null }>();

  /** What each network's chain is compared with: the start's, and any a round agreed on since. */
  private readonly compared: Map<Network, ChainIdentity>;

  constructor(private readonly deps: AvailabilityDeps) {
    this.compared = new Map(deps.identities ?? []);
  }

  /** A round at most `maxAgeMs` old: the last one, or a new one (callers within share it, in flight or done). */
  fresh(maxAgeMs = PROBE_CACHE_MS): Promise<DependencyStatus> {
    const now = this.deps.clock.now().getTime();
    if (!this.round || now - this.round.at >= maxAgeMs || now < this.round.at) this.round = { at: now, status: this.probe() };
    return this.round.status;
  }

  /**
   * What is known, without waiting on the network when something recent is: the last round, a new
   * one started behind it when it is over a second old. Waits only when no round is younger than 10 s.
   */
  known(): Promise<DependencyStatus> {
    const now = this.deps.clock.now().getTime();
    const last = this.round;
    if (!last || now - last.at >= STALE_MS || now < last.at) return this.fresh();
    if (now - last.at >= PROBE_CACHE_MS) void this.fresh().catch(() => undefined);
    return last.status;
  }

  /**
   * The networks of `networks` a payment can be taken on now, in their order; 503 when the
   * facilitator does not answer or none of them does.
   */
  async usable(networks: readonly Network[]): Promise<Network[]> {
    return usableIn(await this.known(), networks);
  }

  /**
   * 503 unless a round started at or after `since` (ms, the clock's) shows `network`'s chain and
   * the facilitator answering: before a payment is refused as invalid, with `since` the moment its
   * verification began — a round from before cannot vouch for a node that died during it.
   */
  async confirm(network: Network, since: number): Promise<void> {
    const last = this.round;
    const status = last && last.at >= since ? await last.status : await this.fresh(0);
    usableIn(status, [network]);
  }

  private async probe(): Promise<DependencyStatus> {
    const { chainProbe, facilitator, networks } = this.deps;
    const [chains, facilitatorStatus] = await Promise.all([
      Promise.all(
        networks.map(async (n) => {
          const status = chainProbe ? await timed(chainProbe.probe(n), 'down' as const) : ('ok' as const);
          const foreign = status === 'ok' ? await this.foreignness(n) : (this.identityChecks.get(n)?.foreign ?? null);
          return [n, foreign ? 'down' : status, foreign] as const;
        }),
      ),
      timed(facilitator.supported().then((kinds): CheckStatus => (kinds.length > 0 ? 'ok' : 'degraded')), 'down' as const),
    ]);
    const foreign = Object.fromEntries(chains.filter(([, , f]) => f !== null).map(([n, , f]) => [n, f!]));
    return {
      chains: Object.fromEntries(chains.map(([n, status]) => [n, status])),
      facilitator: facilitatorStatus,
      ...(Object.keys(foreign).length > 0 ? { foreign } : {}),
    };
  }

  /**
   * What `network`'s chain differs in from the one its books were kept on (null: nothing), asked
   * of the chain at most every IDENTITY_EVERY_MS; a chain that does not answer the question keeps
   * the last answer. Reported when it changes.
   */
  private async foreignness(network: Network): Promise<string | null> {
    const { chainProbe, agree, clock, logger } = this.deps;
    const recorded = this.compared.get(network);
    if (!chainProbe || (!recorded && !agree)) return null;
    const now = clock.now().getTime();
    const last = this.identityChecks.get(network);
    if (last && now - last.at < IDENTITY_EVERY_MS && now >= last.at) return last.foreign;
    const previous = last?.foreign ?? null;
    const asked = recorded
      ? chainProbe.identity(network, recorded.factory).then((seen) => describeDifferences(identityDifferences(recorded, seen)) || null)
      : agree!(network).then((agreed) => {
          if (agreed.recorded) this.compared.set(network, agreed.recorded);
          return agreed.foreign;
        });
    const foreign = await timed(asked, previous);
    this.identityChecks.set(network, { at: now, foreign });
    if (foreign && foreign !== previous) {
      logger?.error(`the chain of ${network} is not the one this database's books were kept on (${foreign}): no payment is taken on it`, { network });
    } else if (!foreign && previous) {
      logger?.warn(`the chain of ${network} is the one its books were kept on again`, { network });
    }
    return foreign;
  }
}

function usableIn(status: DependencyStatus, networks: readonly Network[]): Network[] {
  if (status.facilitator === 'down') {
    throw new ServiceUnavailable('The payment facilitator does not answer; nothing was charged. Try again shortly.', OUTAGE_RETRY_AFTER_SECONDS, {
      dependency: 'facilitator',
    });
  }
  const up = networks.filter((n) => status.chains[n] !== 'down');
  const foreign = networks.filter((n) => status.foreign?.[n]);
  if (up.length === 0 && foreign.length > 0) {
    throw new ServiceUnavailable(
      `The chain of ${foreign.join(' and ')} is not the one this service's books were kept on; nothing was charged.`,
      OUTAGE_RETRY_AFTER_SECONDS,
      { dependency: 'chain', networks: [...networks] },
    );
  }
  if (up.length === 0) {
    throw new ServiceUnavailable(
      `The chain of ${networks.join(' and ')} does not answer; nothing was charged. Try again shortly.`,
      OUTAGE_RETRY_AFTER_SECONDS,
      { dependency: 'chain', networks: [...networks] },
    );
  }
  return up;
}

/**
 * A read of `network`'s chain made before any payment (a seller's balance, a sell authorization):
 * when the node fails it, the caller gets 503 with Retry-After, never a 500. Only for reads before
 * a payment is taken — after, an unanswered chain is the reconciler's to settle, not a refusal.
 */
export async function readChain<T>(network: Network, read: () => Promise<T>): Promise<T> {
  try {
    return await read();
  } catch (e) {
    if (e instanceof DomainError) throw e;
    throw new ServiceUnavailable(`The chain of ${network} does not answer; nothing was charged. Try again shortly.`, OUTAGE_RETRY_AFTER_SECONDS, {
      dependency: 'chain',
      networks: [network],
    }, { cause: e });
  }
}

/** The probe's answer, or `fallback` when it fails or takes longer than PROBE_TIMEOUT_MS. */
async function timed<T>(p: Promise<T>, fallback: T): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([p, new Promise<T>((resolve) => (timer = setTimeout(() => resolve(fallback), PROBE_TIMEOUT_MS)))]);
  } catch {
    return fallback;
  } finally {
    clearTimeout(timer);
  }
}
