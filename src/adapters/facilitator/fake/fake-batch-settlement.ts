/**
 * The batch-settlement contract of the fake chain (docs/payments.md "Pay once, call many"): the
 * facilitator's side of the scheme in memory — deposits move the payer's money into its channel,
 * vouchers are checked against the channel (their signatures by the official EIP-712 recovery),
 * claims set channels' claimed totals (never add to them), `settle` moves what was claimed to
 * the receiver, cooperative refunds claim what is outstanding and pay the rest back. Its answers
 * carry the channel's state as the official facilitator's do (`extra`).
 */
import { createHash } from 'node:crypto';
import { getAddress } from 'viem';
import { assetAt, type Network, type PaymentAsset } from '../../../domain/network.js';
import type { PaymentPayload, PaymentRequirements, SettleResult, VerifyResult } from '../../../ports/facilitator.js';
import { channelIdOf, voucherSignerOf } from '../../kit/x402/batch-settlement.js';

interface ChannelOnChain {
  payer: string;
  token: string;
  balance: bigint;
  totalClaimed: bigint;
  refundNonce: bigint;
}

type Config = { payer: string; payerAuthorizer: string; receiver: string; receiverAuthorizer: string; token: string; withdrawDelay: number; salt: string };
type Voucher = { channelId: string; maxClaimableAmount: string; signature: string };
type Claim = { voucher: { channel: Config; maxClaimableAmount: string }; signature: string; totalClaimed: string };

/** The wallets' balances the fake chain keeps (FakeFacilitator's). */
export interface FakeLedger {
  balanceOf(network: string, address: string, asset: PaymentAsset): bigint;
  fund(network: string, address: string, amount: bigint, asset: PaymentAsset): void;
}

export class FakeBatchSettlement {
  readonly channels = new Map<string, ChannelOnChain>();
  /** Claimed and settled per receiver and token. */
  readonly receivers = new Map<string, { claimed: bigint; settled: bigint }>();
  /** Every transaction, by kind: what the gas of a real chain would be spent on. */
  readonly transactions: { kind: 'deposit' | 'claim' | 'settle' | 'refund'; hash: string }[] = [];
  private readonly vouchers = { channelId: channelIdOf, voucherSigner: voucherSignerOf };
  /** The deposits' authorizations used (an EIP-3009 authorization moves money once). */
  private readonly usedDeposits = new Set<string>();

  constructor(private readonly ledger: FakeLedger) {}

  async verify(payload: PaymentPayload, r: PaymentRequirements): Promise<VerifyResult> {
    const p = payload.payload as { type?: string; channelConfig?: Config; voucher?: Voucher; deposit?: { amount: string } };
    const network = r.network as Network;
    if (!p.channelConfig || !p.voucher) return { isValid: false, invalidReason: 'invalid_batch_settlement_evm_payload_type' };
    const channelId = this.vouchers.channelId(p.channelConfig, network);
    if (channelId !== p.voucher.channelId.toLowerCase()) return { isValid: false, invalidReason: 'invalid_batch_settlement_evm_channel_id_mismatch' };
    const signer = await this.vouchers.voucherSigner({ channelId, maxClaimableAmount: BigInt(p.voucher.maxClaimableAmount), signature: p.voucher.signature }, network);
    if (!signer || signer.toLowerCase() !== p.channelConfig.payerAuthorizer.toLowerCase()) return { isValid: false, invalidReason: 'invalid_batch_settlement_evm_voucher_signature' };
    const state = this.channels.get(channelId) ?? { payer: p.channelConfig.payer, token: p.channelConfig.token, balance: 0n, totalClaimed: 0n, refundNonce: 0n };
    const deposit = p.type === 'deposit' && p.deposit ? BigInt(p.deposit.amount) : 0n;
    if (deposit > 0n && this.usedDeposits.has(JSON.stringify(p.deposit))) return { isValid: false, invalidReason: 'invalid_batch_settlement_evm_receive_authorization_signature', payer: getAddress(p.channelConfig.payer) };
    const asset = assetAt(network, r.asset) ?? 'USDC';
    if (deposit > this.ledger.balanceOf(network, p.channelConfig.payer, asset)) return { isValid: false, invalidReason: 'invalid_batch_settlement_evm_insufficient_balance', payer: getAddress(p.channelConfig.payer) };
    if (BigInt(p.voucher.maxClaimableAmount) > state.balance + deposit) return { isValid: false, invalidReason: 'invalid_batch_settlement_evm_cumulative_exceeds_balance', payer: getAddress(p.channelConfig.payer) };
    return { isValid: true, payer: getAddress(p.channelConfig.payer), extra: stateExtra(channelId, state) };
  }

  async settle(payload: PaymentPayload, r: PaymentRequirements): Promise<SettleResult> {
    const network = r.network;
    const p = payload.payload as { type?: string };
    const fail = (errorReason: string): SettleResult => ({ success: false, errorReason, transaction: '', network });
    const asset = assetAt(network as Network, r.asset) ?? 'USDC';
    switch (p.type) {
      case 'deposit': {
        const verdict = await this.verify(payload, r);
        if (!verdict.isValid) return fail(verdict.invalidReason!);
        const d = payload.payload as { channelConfig: Config; voucher: Voucher; deposit: { amount: string } };
        const id = d.voucher.channelId.toLowerCase();
        const state = this.channels.get(id) ?? { payer: d.channelConfig.payer, token: d.channelConfig.token, balance: 0n, totalClaimed: 0n, refundNonce: 0n };
        const amount = BigInt(d.deposit.amount);
        this.usedDeposits.add(JSON.stringify(d.deposit));
        this.move(network, d.channelConfig.payer, null, amount, asset);
        state.balance += amount;
        this.channels.set(id, state);
        return { success: true, transaction: this.tx('deposit', id), network, payer: getAddress(d.channelConfig.payer), extra: { channelState: stateExtra(id, state) } };
      }
      case 'claim':
        return this.claim(network as Network, (payload.payload as { claims: Claim[] }).claims) ? { success: true, transaction: this.tx('claim', String(this.transactions.length)), network } : fail('invalid_batch_settlement_evm_claim_simulation_failed');
      case 'settle': {
        const s = payload.payload as { receiver: string; token: string };
        const k = `${network}|${s.receiver.toLowerCase()}|${s.token.toLowerCase()}`;
        const account = this.receivers.get(k);
        if (!account || account.claimed <= account.settled) return fail('invalid_batch_settlement_evm_nothing_to_settle');
        this.move(network, null, s.receiver, account.claimed - account.settled, asset);
        account.settled = account.claimed;
        return { success: true, transaction: this.tx('settle', k), network };
      }
      case 'refund': {
        const f = payload.payload as { channelConfig: Config; voucher: Voucher; amount: string; refundNonce: string; claims: Claim[] };
        const id = f.voucher.channelId.toLowerCase();
        const state = this.channels.get(id);
        if (!state || BigInt(f.refundNonce) !== state.refundNonce || !this.claim(network as Network, f.claims)) return fail('invalid_batch_settlement_evm_refund_simulation_failed');
        const amount = BigInt(f.amount);
        if (amount > state.balance - state.totalClaimed) return fail('invalid_batch_settlement_evm_refund_simulation_failed');
        state.balance -= amount;
        state.refundNonce += 1n;
        this.move(network, null, state.payer, amount, asset);
        return { success: true, transaction: this.tx('refund', id), network, payer: getAddress(state.payer), extra: { channelState: stateExtra(id, state) } };
      }
      default:
        return fail('invalid_batch_settlement_evm_payload_type');
    }
  }

  /** Sets each channel's claimed total (never adds): all or nothing, as one transaction. */
  private claim(network: Network, claims: Claim[]): boolean {
    const updates = claims.map((c) => ({ id: this.vouchers.channelId(c.voucher.channel, network), total: BigInt(c.totalClaimed), max: BigInt(c.voucher.maxClaimableAmount), c }));
    for (const u of updates) {
      const state = this.channels.get(u.id);
      if (!state || u.total > u.max || u.total > state.balance) return false;
    }
    for (const u of updates) {
      const state = this.channels.get(u.id)!;
      if (u.total <= state.totalClaimed) continue;
      const k = `${network}|${u.c.voucher.channel.receiver.toLowerCase()}|${u.c.voucher.channel.token.toLowerCase()}`;
      const account = this.receivers.get(k) ?? { claimed: 0n, settled: 0n };
      account.claimed += u.total - state.totalClaimed;
      this.receivers.set(k, account);
      state.totalClaimed = u.total;
    }
    return true;
  }

  /** Money into the contract (from a wallet) or out of it (to a wallet). */
  private move(network: string, from: string | null, to: string | null, amount: bigint, asset: PaymentAsset): void {
    if (from) this.ledger.fund(network, from, this.ledger.balanceOf(network, from, asset) - amount, asset);
    if (to) this.ledger.fund(network, to, this.ledger.balanceOf(network, to, asset) + amount, asset);
  }

  private tx(kind: 'deposit' | 'claim' | 'settle' | 'refund', salt: string): string {
    const hash = `0x${createHash('sha256').update(`${kind}|${salt}|${this.transactions.length}`).digest('hex')}`;
    this.transactions.push({ kind, hash });
    return hash;
  }
}

function stateExtra(channelId: string, s: ChannelOnChain): Record<string, unknown> {
  return { channelId, balance: s.balance.toString(), totalClaimed: s.totalClaimed.toString(), withdrawRequestedAt: 0, refundNonce: s.refundNonce.toString() };
}
