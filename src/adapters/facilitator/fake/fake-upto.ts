/**
 * The x402 `upto` scheme on the fake chain (docs/payments.md "Pay up to"): the facilitator's side
 * in memory. A payer's Permit2 transfer is checked as the official facilitator checks it — the
 * signature recovered under Permit2's domain with the upto witness (@x402/evm's types), the
 * spender the upto proxy, the witness paying the requirements' payTo and naming this facilitator,
 * the deadline and validAfter, the signed maximum equal to the requirements' amount, the nonce
 * unspent, the balance — and settled for the requirements' amount, at most the maximum. Permit2's
 * nonces are kept per owner, shared by every transfer the owner signs, as on chain: `spend` is the
 * owner spending one otherwise (an invalidation, another Permit2 transfer).
 */
import { createHash } from 'node:crypto';
import { PERMIT2_ADDRESS, uptoPermit2WitnessTypes, x402UptoPermit2ProxyAddress } from '@x402/evm';
import { getAddress, recoverTypedDataAddress, type Hex } from 'viem';
import { assetAt, NETWORKS, type Network, type PaymentAsset } from '../../../domain/network.js';
import type { AuthorizationOnChain, Permit2Transfer } from '../../../ports/authorization-reader.js';
import type { PaymentPayload, PaymentRequirements, SettleResult, VerifyResult } from '../../../ports/facilitator.js';

interface Permit2Authorization {
  from: string;
  permitted: { token: string; amount: string };
  spender: string;
  nonce: string;
  deadline: string;
  witness: { to: string; facilitator: string; validAfter: string };
}

/** A transfer the fake chain made. */
export interface UptoTransfer {
  network: string;
  asset: PaymentAsset;
  from: string;
  to: string;
  amount: bigint;
  /** The Permit2 nonce, 0x + 64 hex. */
  nonce: string;
  transaction: string;
}

/** What the upto scheme needs of the fake chain (FakeFacilitator's): balances, its clock, and where its transfers are recorded. */
export interface UptoLedger {
  balanceOf(network: string, address: string, asset: PaymentAsset): bigint;
  fund(network: string, address: string, amount: bigint, asset: PaymentAsset): void;
  nowSeconds(): bigint;
  record(transfer: UptoTransfer): void;
}

const nonceHex = (nonce: string | bigint) => `0x${BigInt(nonce).toString(16).padStart(64, '0')}`;
const nonceKey = (network: string, owner: string, nonce: string | bigint) => `${network}|${owner.toLowerCase()}|${nonceHex(nonce)}`;

export class FakeUpto {
  /** Permit2 nonces spent, per (network, owner, nonce). */
  private readonly spent = new Set<string>();
  readonly transfers: UptoTransfer[] = [];

  constructor(
    private readonly ledger: UptoLedger,
    /** The account the fake facilitator settles as: the witness's facilitator must name it. */
    readonly facilitatorAddress: string,
  ) {}

  async verify(payload: PaymentPayload, r: PaymentRequirements): Promise<VerifyResult> {
    const p = (payload.payload as { permit2Authorization?: Permit2Authorization }).permit2Authorization;
    const signature = (payload.payload as { signature?: Hex }).signature;
    if (!p || !signature) return { isValid: false, invalidReason: 'invalid_upto_evm_payload' };
    const payer = getAddress(p.from);
    const invalid = (invalidReason: string): VerifyResult => ({ isValid: false, invalidReason, payer });
    if (r.scheme !== 'upto' || payload.accepted?.scheme !== 'upto') return invalid('invalid_upto_evm_scheme');
    if (payload.accepted.network !== r.network || !(r.network in NETWORKS)) return invalid('invalid_upto_evm_network_mismatch');
    if (getAddress(p.spender) !== getAddress(x402UptoPermit2ProxyAddress)) return invalid('invalid_permit2_spender');
    if (getAddress(p.witness.to) !== getAddress(r.payTo)) return invalid('invalid_permit2_recipient_mismatch');
    if (getAddress(p.witness.facilitator) !== getAddress(this.facilitatorAddress)) return invalid('upto_facilitator_mismatch');
    const now = this.ledger.nowSeconds();
    if (BigInt(p.deadline) < now + 6n) return invalid('permit2_deadline_expired');
    if (BigInt(p.witness.validAfter) > now) return invalid('permit2_not_yet_valid');
    if (BigInt(p.permitted.amount) !== BigInt(r.amount)) return invalid('permit2_amount_mismatch');
    const asset = assetAt(r.network as Network, r.asset);
    if (!asset || getAddress(p.permitted.token) !== getAddress(r.asset)) return invalid('permit2_token_mismatch');
    let signer: string;
    try {
      signer = await recoverTypedDataAddress({
        domain: { name: 'Permit2', chainId: NETWORKS[r.network as Network].chainId, verifyingContract: PERMIT2_ADDRESS },
        types: uptoPermit2WitnessTypes,
        primaryType: 'PermitWitnessTransferFrom',
        message: {
          permitted: { token: getAddress(p.permitted.token), amount: BigInt(p.permitted.amount) },
          spender: getAddress(p.spender),
          nonce: BigInt(p.nonce),
          deadline: BigInt(p.deadline),
          witness: { to: getAddress(p.witness.to), facilitator: getAddress(p.witness.facilitator), validAfter: BigInt(p.witness.validAfter) },
        },
        signature,
      });
    } catch {
      return invalid('invalid_permit2_signature');
    }
    if (signer !== payer) return invalid('invalid_permit2_signature');
    if (this.spent.has(nonceKey(r.network, payer, p.nonce))) return invalid('permit2_invalid_nonce');
    if (this.ledger.balanceOf(r.network, payer, asset) < BigInt(p.permitted.amount)) return invalid('permit2_insufficient_balance');
    return { isValid: true, payer };
  }

  /** Settles `r.amount` (the actual amount) of a transfer verified for its signed maximum, as the official facilitator does. */
  async settle(payload: PaymentPayload, r: PaymentRequirements): Promise<SettleResult> {
    const p = (payload.payload as { permit2Authorization?: Permit2Authorization }).permit2Authorization;
    const verdict = await this.verify(payload, { ...r, amount: p?.permitted.amount ?? r.amount });
    if (!verdict.isValid || !p) return { success: false, errorReason: verdict.invalidReason ?? 'invalid_upto_evm_payload', transaction: '', network: r.network, ...(verdict.payer ? { payer: verdict.payer } : {}) };
    const payer = getAddress(p.from);
    const amount = BigInt(r.amount);
    if (amount > BigInt(p.permitted.amount)) return { success: false, errorReason: 'invalid_upto_evm_payload_settlement_exceeds_amount', transaction: '', network: r.network, payer };
    if (amount === 0n) return { success: true, transaction: '', network: r.network, payer, amount: '0' };
    const asset = assetAt(r.network as Network, r.asset)!;
    this.ledger.fund(r.network, payer, this.ledger.balanceOf(r.network, payer, asset) - amount, asset);
    this.ledger.fund(r.network, p.witness.to, this.ledger.balanceOf(r.network, p.witness.to, asset) + amount, asset);
    this.spent.add(nonceKey(r.network, payer, p.nonce));
    const transaction = `0x${createHash('sha256').update(`permit2|${nonceKey(r.network, payer, p.nonce)}`).digest('hex')}`;
    const transfer: UptoTransfer = { network: r.network, asset, from: payer, to: getAddress(p.witness.to), amount, nonce: nonceHex(p.nonce), transaction };
    this.transfers.push(transfer);
    this.ledger.record(transfer);
    return { success: true, transaction, network: r.network, payer, amount: amount.toString() };
  }

  /** The owner spends a Permit2 nonce otherwise: invalidates it, or uses it in another transfer it signed. */
  spend(network: string, owner: string, nonce: string): void {
    this.spent.add(nonceKey(network, owner, nonce));
  }

  /** What the fake chain knows of a Permit2 transfer (AuthorizationReader.permit2Transfer). */
  read(network: string, t: Permit2Transfer): AuthorizationOnChain {
    const blockTime = this.ledger.nowSeconds();
    const settled = this.transfers.find(
      (x) => x.network === network && x.from.toLowerCase() === t.owner.toLowerCase() && x.nonce === nonceHex(t.nonce) && x.to.toLowerCase() === t.to.toLowerCase() && x.amount === t.amount && x.asset === (t.asset ?? 'USDC'),
    );
    if (settled) return { state: 'used', transaction: settled.transaction, blockTime };
    return { state: this.spent.has(nonceKey(network, t.owner, t.nonce)) ? 'cancelled' : 'unused', transaction: null, blockTime };
  }
}
