/**
 * The cooperative refund of a batch-settlement channel (docs/payments.md "Pay once, call many"),
 * as the official client asks it (`refund(url)`): a GET of a paid entrypoint's URL without a
 * payment is answered with the scheme's offers (`refundProbe`); with a refund payload — the
 * payer authorizer's voucher of what the channel charged — the channel's unclaimed charges are
 * claimed and the rest of its deposit goes back to the payer, in one transaction the
 * facilitator sends with the receiver authorizer's signatures (`refundChannel`).
 *
 * No charge can slip in between: the channel's balance in the books is first lowered to what it
 * has charged, so no voucher covers another call, and the refund is computed from the charges as
 * they stand after that. A refund refused or lost leaves it there: the next voucher above it reads
 * the channel's balance from the chain (voucher-verification.ts) — never the balance from before
 * the refund, which a refund that did happen (a racing one) has spent.
 */
import { refundable, type Channel } from '../../../domain/channel.js';
import { PaymentInvalid, ServiceUnavailable } from '../../../domain/errors.js';
import { ALL_NETWORKS, isNetwork, PAYMENT_ASSETS, type Network } from '../../../domain/network.js';
import { SettlementIndeterminate, type PaymentPayload, type ResourceInfo } from '../../../ports/facilitator.js';
import type { StoredResponse } from '../../../ports/payment-store.js';
import { successEnvelope } from '../../kit/error-status.js';
import type { PipelineDeps } from '../pipeline/deps.js';
import { batchRequirementsFor, requirementsFor, X402_VERSION, type PaymentRequiredObject } from '../requirements.js';
import { requirementsOf, settleToTreasury } from './channel-claims.js';
import { readVoucherPayment, type VoucherPayment } from './voucher-payment.js';
import { channelStateExtra, VOUCHER_REASONS } from './voucher-verification.js';

export const REFUND_REASONS = {
  noBalance: 'invalid_batch_settlement_evm_refund_no_balance',
  amountInvalid: 'invalid_batch_settlement_evm_refund_amount_invalid',
  refundFailed: 'invalid_batch_settlement_evm_refund_transaction_failed',
} as const;

/**
 * A GET of a paid URL: the batch-settlement offers a refund is made against (price 0: nothing is
 * bought). The official client refunds the channel of the first offer; `?network=…&asset=…` on the
 * URL narrows them to one channel's (by default Base's USDC comes first).
 */
export function refundProbe(deps: Pick<PipelineDeps, 'settings'>, resource: ResourceInfo, error?: string, only: { network?: string; asset?: string } = {}): PaymentRequiredObject | null {
  const batch = deps.settings.batchSettlement;
  if (!batch) return null;
  const networks = ALL_NETWORKS.filter((n) => only.network === undefined || n === only.network);
  const assets = PAYMENT_ASSETS.filter((a) => only.asset === undefined || a === only.asset);
  const accepts = networks.flatMap((network) =>
    assets.map((asset) =>
      batchRequirementsFor(requirementsFor(network, 0n, deps.settings.payTo[network], asset), batch),
    ),
  );
  return { x402Version: X402_VERSION, ...(error ? { error } : {}), resource, accepts };
}

export async function refundChannel(deps: PipelineDeps, payload: PaymentPayload, resource: ResourceInfo): Promise<StoredResponse> {
  const network = payload.accepted?.network;
  const v = readVoucherPayment(payload.payload);
  const refuse = (reason: string, message: string) => new PaymentInvalid(message, { reason, paymentRequired: refundProbe(deps, resource, reason) });
  if (!isNetwork(network) || v.type !== 'refund' || !deps.settings.batchSettlement) throw refuse(VOUCHER_REASONS.channelNotFound, 'A GET of a paid URL takes only a batch-settlement refund.');
  const signer = await deps.vouchers.voucherSigner({ channelId: v.channelId, maxClaimableAmount: v.max, signature: v.signature }, network);
  if (signer === null || signer.toLowerCase() !== v.config.payerAuthorizer.toLowerCase() || deps.vouchers.channelId(v.config, network) !== v.channelId) {
    throw refuse(VOUCHER_REASONS.badSignature, "The refund's voucher is not the payer authorizer's signature of its channel.");
  }
  const known = await deps.uow.run((s) => s.channels.get(v.channelId));
  if (!known || known.network !== network) throw refuse(VOUCHER_REASONS.channelNotFound, 'The service has no such channel.');
  // No voucher covers another call from here: the balance in the books is what was charged.
  await deps.uow.run((s) => s.channels.refunded(known.channelId, { balance: known.charged, claimed: known.claimed, refundNonce: known.refundNonce }, deps.clock.now()));
  const channel = (await deps.uow.run((s) => s.channels.get(v.channelId)))!;
  const left = refundable({ balance: known.balance, charged: channel.charged });
  const amount = v.refundAmount ?? left;
  if (left === 0n || amount === 0n || amount > left) {
    throw refuse(left === 0n ? REFUND_REASONS.noBalance : REFUND_REASONS.amountInvalid, `The channel has ${left} left to refund; asked ${amount}.`);
  }
  const sent = await sendRefund(deps, v, network, channel, known, amount);
  const after: Channel = { ...channel, balance: known.balance - amount, claimed: channel.charged, refundNonce: known.refundNonce + 1n };
  await deps.uow.run((s) => s.channels.refunded(channel.channelId, { balance: after.balance, claimed: after.claimed, refundNonce: after.refundNonce }, deps.clock.now()));
  deps.metrics.increment('channel_refunds_total', { network, outcome: 'success' });
  // The refund claimed the channel's last charges: they go to the treasury now, not at some later claim's settle.
  if (channel.charged > channel.claimed) await settleToTreasury(deps, network, channel.config.token);
  return {
    status: 200,
    body: successEnvelope('channel_refund', { channelId: channel.channelId, network, asset: channel.asset, refunded: amount.toString(), charged: channel.charged.toString(), transaction: sent }),
    headers: {},
    settlement: { success: true, transaction: sent, network, payer: channel.config.payer, extra: { channelState: channelStateExtra(after) } },
  };
}

async function sendRefund(deps: PipelineDeps, v: VoucherPayment, network: Network, channel: Channel, known: Channel, amount: bigint): Promise<string> {
  const requirements = requirementsOf(deps, network, channel.config.token);
  const unclaimed = channel.charged > channel.claimed && channel.signature;
  const payload = {
    type: 'refund',
    channelConfig: v.config,
    voucher: { channelId: v.channelId, maxClaimableAmount: v.max.toString(), signature: v.signature },
    amount: amount.toString(),
    refundNonce: known.refundNonce.toString(),
    claims: unclaimed ? [{ voucher: { channel: channel.config, maxClaimableAmount: channel.signedMax.toString() }, signature: channel.signature, totalClaimed: channel.charged.toString() }] : [],
  };
  try {
    const result = await deps.facilitator.settle({ x402Version: X402_VERSION, accepted: requirements, payload }, requirements);
    if (result.success) return result.transaction;
    deps.metrics.increment('channel_refunds_total', { network, outcome: 'failed' });
    throw new PaymentInvalid(result.errorMessage ?? 'The refund was not made.', { reason: result.errorReason ?? REFUND_REASONS.refundFailed });
  } catch (e) {
    if (!(e instanceof SettlementIndeterminate)) throw e;
    deps.metrics.increment('channel_refunds_total', { network, outcome: 'unknown' });
    // The chain decides; the channel takes no more calls until it is read again.
    throw new ServiceUnavailable("The refund was sent and its outcome is not known yet; ask again in a few seconds.", 5);
  }
}

