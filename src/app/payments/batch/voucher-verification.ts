/**
 * Admission's checks of a batch-settlement payment (docs/payments.md "Pay once, call many"),
 * before its voucher is claimed: the channel is ours (receiver, asset, receiver authorizer, its
 * id), a deposit that comes with it is verified and submitted by the facilitator (the payer's
 * money moves into the payer's own channel, nothing is charged), the voucher is the payer
 * authorizer's signature — one recovery, no chain — and it covers what the channel has charged
 * plus this call's price within the deposit. A channel we do not know yet, or a voucher above the
 * balance we last saw, is read on chain through the facilitator once.
 *
 * A voucher behind the channel's books gets the scheme's corrective 402: its error names the
 * mismatch and its batch-settlement offer carries the channel's state and the last voucher
 * accepted, from which the official client takes up its books again and signs anew.
 */
import { voucherShortfall, type Channel } from '../../../domain/channel.js';
import { PaymentInvalid, ServiceUnavailable } from '../../../domain/errors.js';
import type { Network, PaymentAsset } from '../../../domain/network.js';
import { SettlementIndeterminate, type PaymentPayload, type PaymentRequirements } from '../../../ports/facilitator.js';
import type { PipelineDeps } from '../pipeline/deps.js';
import type { Refusal } from '../pipeline/refusal.js';
import { BATCH_SETTLEMENT, type VoucherPayment } from './voucher-payment.js';

/** The scheme's reasons, as the official @x402/evm names them. */
export const VOUCHER_REASONS = {
  channelIdMismatch: 'invalid_batch_settlement_evm_channel_id_mismatch',
  receiverMismatch: 'invalid_batch_settlement_evm_receiver_mismatch',
  receiverAuthorizerMismatch: 'invalid_batch_settlement_evm_receiver_authorizer_mismatch',
  tokenMismatch: 'invalid_batch_settlement_evm_token_mismatch',
  withdrawDelay: 'invalid_batch_settlement_evm_withdraw_delay_out_of_range',
  channelNotFound: 'invalid_batch_settlement_evm_channel_not_found',
  badSignature: 'invalid_batch_settlement_evm_voucher_signature',
  exceedsBalance: 'invalid_batch_settlement_evm_cumulative_exceeds_balance',
  cumulativeMismatch: 'invalid_batch_settlement_evm_cumulative_amount_mismatch',
  belowClaimed: 'invalid_batch_settlement_evm_cumulative_below_claimed',
  depositFailed: 'invalid_batch_settlement_evm_deposit_transaction_failed',
} as const;

const same = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();

export interface VoucherContext {
  network: Network;
  asset: PaymentAsset;
  payload: PaymentPayload;
  requirements: PaymentRequirements;
  price: bigint;
}

/** The channel the voucher pays from, as its books stand now; throws the refusal of a voucher that cannot pay. */
export async function verifyVoucher(deps: PipelineDeps, refusal: Refusal, v: VoucherPayment, c: VoucherContext): Promise<Channel> {
  await checkChannel(deps, refusal, v, c);
  if (v.deposit !== null) await deposit(deps, refusal, v, c);
  const signer = await deps.vouchers.voucherSigner({ channelId: v.channelId, maxClaimableAmount: v.max, signature: v.signature }, c.network);
  if (signer === null || !same(signer, v.config.payerAuthorizer)) {
    throw await refusal.invalid(VOUCHER_REASONS.badSignature, "The voucher is not the payer authorizer's signature of this channel and amount.");
  }
  let channel = await deps.uow.run((s) => s.channels.get(v.channelId));
  // A channel funded where we did not see it (another instance, a deposit whose answer was lost),
  // or topped up since: the chain says.
  if (channel === null || v.max > channel.balance) channel = (await fromChain(deps, v, c)) ?? channel;
  if (channel === null) {
    throw await refusal.invalid(VOUCHER_REASONS.channelNotFound, 'The channel has no deposit: pay with a deposit first (the batch-settlement client does).');
  }
  const shortfall = voucherShortfall(channel, v.max, c.price);
  if (shortfall === 'exceeds_balance') {
    throw await refusal.invalid(VOUCHER_REASONS.exceedsBalance, `The voucher's maximum (${v.max}) is above the channel's deposit (${channel.balance}): deposit more.`);
  }
  if (shortfall === 'cumulative_mismatch') throw await corrective(refusal, channel, v, c);
  return channel;
}

/** The scheme's corrective 402: the channel's books and its last voucher, for the client to take up again. */
export async function corrective(refusal: Refusal, channel: Channel, v: Pick<VoucherPayment, 'max'>, c: Pick<VoucherContext, 'price'>): Promise<PaymentInvalid> {
  const required = await refusal.required(VOUCHER_REASONS.cumulativeMismatch);
  const state = channelStateExtra(channel);
  const voucherState = channel.signature ? { signedMaxClaimable: channel.signedMax.toString(), signature: channel.signature } : {};
  return new PaymentInvalid(
    `The voucher's maximum (${v.max}) does not cover what the channel has charged (${channel.charged}) plus this call's price (${c.price}): sign a voucher from the channel's state in PAYMENT-REQUIRED.`,
    {
      reason: VOUCHER_REASONS.cumulativeMismatch,
      paymentRequired: {
        ...required,
        accepts: required.accepts.map((a) => (a.scheme === BATCH_SETTLEMENT ? { ...a, extra: { ...a.extra, channelState: state, voucherState } } : a)),
      },
    },
  );
}

/** A channel's state as the scheme's answers carry it (`extra.channelState`). */
export function channelStateExtra(channel: Channel): Record<string, unknown> {
  return {
    channelId: channel.channelId,
    balance: channel.balance.toString(),
    totalClaimed: channel.claimed.toString(),
    withdrawRequestedAt: 0,
    refundNonce: channel.refundNonce.toString(),
    chargedCumulativeAmount: channel.charged.toString(),
  };
}

async function checkChannel(deps: PipelineDeps, refusal: Refusal, v: VoucherPayment, c: VoucherContext): Promise<void> {
  const extra = c.requirements.extra as { receiverAuthorizer?: string; withdrawDelay?: number };
  if (!same(v.config.receiver, c.requirements.payTo)) throw await refusal.invalid(VOUCHER_REASONS.receiverMismatch, 'The channel pays another receiver than the treasury.');
  if (!same(v.config.token, c.requirements.asset)) throw await refusal.invalid(VOUCHER_REASONS.tokenMismatch, 'The channel holds another asset than the payment names.');
  if (typeof extra.receiverAuthorizer !== 'string' || !same(v.config.receiverAuthorizer, extra.receiverAuthorizer)) {
    throw await refusal.invalid(VOUCHER_REASONS.receiverAuthorizerMismatch, "The channel names another receiver authorizer than the service's.");
  }
  if (typeof extra.withdrawDelay === 'number' && v.config.withdrawDelay < extra.withdrawDelay) {
    throw await refusal.invalid(VOUCHER_REASONS.withdrawDelay, `The channel's withdraw delay must be at least ${extra.withdrawDelay} s.`);
  }
  if (deps.vouchers.channelId(v.config, c.network) !== v.channelId) {
    throw await refusal.invalid(VOUCHER_REASONS.channelIdMismatch, "The voucher's channel id is not its channel configuration's.");
  }
}

/**
 * The deposit that comes with the voucher: verified and submitted by the facilitator. The payer's
 * money moves into the payer's own channel — refundable, nothing charged — so it is made before
 * the claim; an outcome not known is a 503 (the chain decides, and the next voucher reads it).
 */
async function deposit(deps: PipelineDeps, refusal: Refusal, v: VoucherPayment, c: VoucherContext): Promise<void> {
  const verified = await deps.facilitator.verify(c.payload, c.requirements);
  if (!verified.isValid) {
    // The same deposit again (a retry of a request that died after it): the channel already holds it.
    const onChain = await fromChain(deps, v, c);
    if (onChain && onChain.balance >= v.max) return;
    throw await refusal.invalid(verified.invalidReason ?? VOUCHER_REASONS.depositFailed, verified.invalidMessage ?? 'The deposit did not verify.');
  }
  let settled;
  try {
    settled = await deps.facilitator.settle(c.payload, c.requirements);
  } catch (e) {
    if (!(e instanceof SettlementIndeterminate)) throw e;
    throw new ServiceUnavailable("The channel's deposit was sent and its outcome is not known yet; pay again in a few seconds (a voucher alone, once the deposit is mined).", 5);
  }
  if (!settled.success) throw await refusal.invalid(settled.errorReason ?? VOUCHER_REASONS.depositFailed, settled.errorMessage ?? 'The deposit was not made.');
  const before = onChainBalance(verified.extra) ?? 0n;
  const after = onChainBalance(settled.extra?.channelState as Record<string, unknown> | undefined) ?? before + v.deposit!;
  deps.metrics.increment('channel_deposits_total', { network: c.network, asset: c.asset });
  await fund(deps, v, c, after, refundNonceOf(verified.extra));
}

/** The channel as the chain shows it (through the facilitator's verification of the voucher), recorded; null when it holds nothing. */
async function fromChain(deps: PipelineDeps, v: VoucherPayment, c: VoucherContext): Promise<Channel | null> {
  const asVoucher: PaymentPayload = { ...c.payload, payload: { type: 'voucher', channelConfig: v.config, voucher: { channelId: v.channelId, maxClaimableAmount: v.max.toString(), signature: v.signature } } };
  const read = await deps.facilitator.verify(asVoucher, c.requirements);
  const balance = onChainBalance(read.extra);
  if (balance === null || balance === 0n) return null;
  return fund(deps, v, c, balance, refundNonceOf(read.extra));
}

async function fund(deps: PipelineDeps, v: VoucherPayment, c: VoucherContext, balance: bigint, refundNonce: bigint): Promise<Channel> {
  const now = deps.clock.now();
  const channel: Channel = {
    channelId: v.channelId,
    network: c.network,
    asset: c.asset,
    config: v.config,
    balance,
    charged: 0n,
    signedMax: 0n,
    signature: null,
    claimed: 0n,
    claiming: null,
    claimingSince: null,
    refundNonce,
    createdAt: now,
    updatedAt: now,
  };
  return deps.uow.run((s) => s.channels.funded(channel, now));
}

function onChainBalance(extra: Record<string, unknown> | undefined): bigint | null {
  const balance = extra?.balance;
  return typeof balance === 'string' && /^\d+$/.test(balance) ? BigInt(balance) : null;
}

function refundNonceOf(extra: Record<string, unknown> | undefined): bigint {
  const nonce = extra?.refundNonce;
  return typeof nonce === 'string' && /^\d+$/.test(nonce) ? BigInt(nonce) : 0n;
}
