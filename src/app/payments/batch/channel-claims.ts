/**
 * The claims of batch-settlement channels (docs/payments.md "Pay once, call many"): each pass
 * takes the channels whose charges no claim has taken, per network and asset, marks each claim
 * under way in the database (a compare-and-set: one claimer per channel across processes), and
 * sends them to the facilitator in one `claimWithSignature` transaction, then one `settle` that
 * moves what was claimed to the treasury.
 *
 * Exactly once, by construction: a claim carries each channel's cumulative total and the
 * contract sets a channel's claimed total — it never adds to it — so a claim sent again (a
 * process killed after broadcasting it, a claim whose answer was lost) moves nothing more. A
 * claim under way whose sender died is settled from the chain on a later pass: the channel's
 * claimed total as the facilitator reads it either reached the claim (done) or did not (the
 * claim ends and the charges are claimed again). `settle` moves the claimed and unsettled sum,
 * whatever claims made it, so it too can run any number of times.
 */
import type { Channel } from '../../../domain/channel.js';
import type { Network, PaymentAsset } from '../../../domain/network.js';
import { SettlementIndeterminate, type PaymentPayload, type PaymentRequirements } from '../../../ports/facilitator.js';
import type { PipelineDeps } from '../pipeline/deps.js';
import { MAX_TIMEOUT_SECONDS, X402_VERSION } from '../requirements.js';
import { BATCH_SETTLEMENT } from './voucher-payment.js';
import { VOUCHER_REASONS } from './voucher-verification.js';

type ClaimDeps = Pick<PipelineDeps, 'uow' | 'clock' | 'facilitator' | 'settings' | 'logger' | 'metrics'>;


export interface ClaimPassOptions {
  networks: readonly Network[];
  /** Vouchers per claim transaction. */
  batch: number;
  /**
   * A channel is claimed once it has taken no call for this long, or once its unclaimed charges
   * reach `claimAtUnits` (the asset's smallest units): a claim is a transaction, so an agent
   * calling steadily is claimed for in batches, not after every call.
   */
  idleMs: number;
  claimAtUnits: bigint;
  /** A claim marked under way this long ago is taken for one whose sender died, and the chain is asked whether it happened. */
  underWayMs: number;
  /** Test-only seams: right after the claims are marked under way, and right after the claim transaction answered success. */
  hooks?: { afterMarked?: (channels: Channel[]) => Promise<void>; afterClaimed?: (channels: Channel[]) => Promise<void> } | undefined;
}

/** The defaults: a minute of quiet, or a dollar unclaimed. */
export const CLAIM_DEFAULTS = { batch: 50, idleMs: 60_000, claimAtUnits: 1_000_000n, underWayMs: 60_000 } as const;

/** One pass: claims under way that outlived their sender are settled from the chain, then the new charges are claimed. Returns the channels claimed. */
export async function claimChannels(deps: ClaimDeps, options: ClaimPassOptions): Promise<number> {
  if (!deps.settings.batchSettlement) return 0;
  const now = deps.clock.now();
  for (const stale of await deps.uow.run((s) => s.channels.claimsUnderWay(new Date(now.getTime() - options.underWayMs), options.batch))) {
    // What its claim took and no settle moved yet goes to the treasury (nothing to settle is no failure).
    if (await settleFromChain(deps, stale)) await settleToTreasury(deps, stale.network, stale.config.token);
  }
  let claimed = 0;
  for (const network of options.networks) {
    const quietSince = now.getTime() - options.idleMs;
    const claimable = await deps.uow.run((s) => s.channels.claimable(network, options.batch));
    const due = claimable.filter((c) => c.updatedAt.getTime() <= quietSince || c.charged - c.claimed >= options.claimAtUnits);
    for (const [asset, channels] of byAsset(due)) claimed += await claimBatch(deps, network, asset, channels, options.hooks);
  }
  return claimed;
}

async function claimBatch(deps: ClaimDeps, network: Network, asset: PaymentAsset, channels: Channel[], hooks: ClaimPassOptions['hooks']): Promise<number> {
  const now = deps.clock.now();
  const started: Channel[] = [];
  for (const c of channels) if (c.signature && (await deps.uow.run((s) => s.channels.startClaim(c.channelId, c.charged, now)))) started.push(c);
  if (started.length === 0) return 0;
  await hooks?.afterMarked?.(started);
  const requirements = requirementsOf(deps, network, started[0]!.config.token);
  const claims = started.map((c) => ({
    voucher: { channel: c.config, maxClaimableAmount: c.signedMax.toString() },
    signature: c.signature!,
    totalClaimed: c.charged.toString(),
  }));
  const outcome = await send(deps, requirements, { type: 'claim', claims });
  deps.metrics.increment('channel_claims_total', { network, outcome });
  if (outcome === 'unknown') return 0; // under way: a later pass asks the chain
  if (outcome === 'success') await hooks?.afterClaimed?.(started);
  for (const c of started) {
    await deps.uow.run((s) => (outcome === 'success' ? s.channels.claimed(c.channelId, c.charged, deps.clock.now()) : s.channels.claimAbandoned(c.channelId, deps.clock.now())));
  }
  if (outcome !== 'success') return 0;
  await settleToTreasury(deps, network, started[0]!.config.token);
  deps.logger.info('batch-settlement channels claimed', { network, asset, channels: started.length });
  return started.length;
}

/** A claim under way whose sender died: the chain's claimed total says whether it happened (true: it did). */
async function settleFromChain(deps: ClaimDeps, c: Channel): Promise<boolean> {
  const requirements = requirementsOf(deps, c.network, c.config.token);
  const read: PaymentPayload = {
    x402Version: X402_VERSION,
    accepted: requirements,
    payload: { type: 'voucher', channelConfig: c.config, voucher: { channelId: c.channelId, maxClaimableAmount: c.signedMax.toString(), signature: c.signature ?? '0x' } },
  };
  const state = await deps.facilitator.verify(read, requirements).catch(() => null);
  const total = claimedOnChain(state, c);
  if (total === null) return false; // the chain cannot say now: a later pass asks again
  const now = deps.clock.now();
  const happened = total >= (c.claiming ?? 0n);
  await deps.uow.run((s) => (happened ? s.channels.claimed(c.channelId, total, now) : s.channels.claimAbandoned(c.channelId, now)));
  deps.logger.warn('a batch-settlement claim whose sender died was settled from the chain', { channelId: c.channelId, claimed: total, happened });
  return happened;
}

/**
 * What the contract has claimed of a channel, as the facilitator's verification of its last
 * voucher shows it: the channel's state when the voucher is still above it; a voucher at or below
 * the claimed total (the scheme's `cumulative_below_claimed`) says the contract took at least the
 * voucher's maximum — at least any claim of ours, which never goes above it. Null: no answer.
 */
function claimedOnChain(state: { isValid: boolean; invalidReason?: string; extra?: Record<string, unknown> } | null, c: Channel): bigint | null {
  if (state?.invalidReason === VOUCHER_REASONS.belowClaimed) return c.claiming !== null && c.claiming > c.claimed ? c.claiming : c.signedMax;
  const total = state?.extra?.totalClaimed;
  return typeof total === 'string' && /^\d+$/.test(total) ? BigInt(total) : null;
}

/** What claims took of `token` on `network` and no settle moved yet goes to the treasury; nothing to settle is no failure. */
export async function settleToTreasury(deps: ClaimDeps, network: Network, token: string): Promise<void> {
  await send(deps, requirementsOf(deps, network, token), { type: 'settle', receiver: deps.settings.payTo[network], token });
}

async function send(deps: ClaimDeps, requirements: PaymentRequirements, payload: Record<string, unknown>): Promise<'success' | 'failed' | 'unknown'> {
  try {
    const result = await deps.facilitator.settle({ x402Version: X402_VERSION, accepted: requirements, payload }, requirements);
    if (!result.success) deps.logger.warn('a batch-settlement transaction was refused', { type: payload.type, reason: result.errorReason, message: result.errorMessage });
    return result.success ? 'success' : 'failed';
  } catch (e) {
    if (!(e instanceof SettlementIndeterminate)) deps.logger.warn('a batch-settlement transaction failed', { type: payload.type, error: (e as Error).message });
    return 'unknown';
  }
}

/** The requirements the facilitator's batch-settlement operations run under: the treasury, the asset, the receiver authorizer. */
export function requirementsOf(deps: Pick<PipelineDeps, 'settings'>, network: Network, token: string): PaymentRequirements {
  const batch = deps.settings.batchSettlement!;
  return {
    scheme: BATCH_SETTLEMENT,
    network,
    asset: token,
    amount: '0',
    payTo: deps.settings.payTo[network],
    maxTimeoutSeconds: MAX_TIMEOUT_SECONDS,
    extra: { receiverAuthorizer: batch.receiverAuthorizer[network], withdrawDelay: batch.withdrawDelaySeconds },
  };
}

function byAsset(channels: Channel[]): Map<PaymentAsset, Channel[]> {
  const groups = new Map<PaymentAsset, Channel[]>();
  for (const c of channels) groups.set(c.asset, [...(groups.get(c.asset) ?? []), c]);
  return groups;
}
