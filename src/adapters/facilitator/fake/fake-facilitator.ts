/**
 * A facilitator that really checks EIP-3009 signatures (EIP-712 recovery, amount, recipient,
 * asset, network, validity window, nonce, balance) and settles in memory. Used by tests and by
 * a start without a devnet, so every path exercises real signatures.
 */
import { createHash } from 'node:crypto';
import { getAddress, recoverTypedDataAddress, type Hex } from 'viem';
import { assetAt, isNetwork, NETWORKS, type Network, type PaymentAsset } from '../../../domain/network.js';
import type { AuthorizationOnChain, AuthorizationReader, Permit2Transfer } from '../../../ports/authorization-reader.js';
import type { Clock } from '../../../ports/clock.js';
import {
  SettlementIndeterminate,
  type Facilitator,
  type PaymentPayload,
  type PaymentRequirements,
  type SettleResult,
  type SupportedKind,
  type VerifyResult,
} from '../../../ports/facilitator.js';
import { FakeBatchSettlement } from './fake-batch-settlement.js';
import { FakeUpto } from './fake-upto.js';

const TRANSFER_WITH_AUTHORIZATION = {
  TransferWithAuthorization: [
    { name: 'from', type: 'address' },
    { name: 'to', type: 'address' },
    { name: 'value', type: 'uint256' },
    { name: 'validAfter', type: 'uint256' },
    { name: 'validBefore', type: 'uint256' },
    { name: 'nonce', type: 'bytes32' },
  ],
} as const;

interface Authorization {
  from: Hex;
  to: Hex;
  value: string;
  validAfter: string;
  validBefore: string;
  nonce: Hex;
}

export interface FakeFacilitatorOptions {
  clock: Clock;
  /** Units of every asset (USDC, EURC) every unknown wallet holds on every network. */
  defaultBalance?: bigint;
  /** The account it settles upto payments as (`supported()`'s facilitatorAddress); default anvil's #0, the devnet's settlement key. */
  facilitatorAddress?: string;
}

export interface SettledTransfer {
  network: string;
  asset: PaymentAsset;
  from: string;
  to: string;
  amount: bigint;
  nonce: string;
  transaction: string;
  /** `upto`: a Permit2 transfer (its nonce is Permit2's, not EIP-3009's); absent: an EIP-3009 transfer. */
  scheme?: 'upto';
}

const key = (network: string, address: string) => `${network}|${address.toLowerCase()}`;
const balanceKey = (network: string, address: string, asset: PaymentAsset) => `${key(network, address)}|${asset}`;

/** Also the fake chain's record of used authorizations, for the reconciler. */
export class FakeFacilitator implements Facilitator, AuthorizationReader {
  verifyCalls = 0;
  settleCalls = 0;
  readonly settled: SettledTransfer[] = [];
  private readonly balances = new Map<string, bigint>();
  private readonly usedNonces = new Set<string>();
  private readonly cancelled = new Set<string>();
  private nextSettle:
    | { kind: 'fail'; reason: string; transfers: boolean }
    | { kind: 'timeout'; transfers: boolean }
    | null = null;

  /** The fake chain's batch-settlement contract (docs/payments.md "Pay once, call many"). */
  readonly batch = new FakeBatchSettlement(this);
  /** The fake chain's Permit2 and upto proxy (docs/payments.md "Pay up to"). */
  readonly upto: FakeUpto;

  constructor(private readonly options: FakeFacilitatorOptions) {
    this.upto = new FakeUpto(
      {
        balanceOf: (network, address, asset) => this.balanceOf(network, address, asset),
        fund: (network, address, amount, asset) => this.fund(network, address, amount, asset),
        nowSeconds: () => BigInt(Math.floor(this.options.clock.now().getTime() / 1000)),
        record: (t) => this.settled.push({ ...t, scheme: 'upto' }),
      },
      options.facilitatorAddress ?? '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266',
    );
  }

  fund(network: string, address: string, amount: bigint, asset: PaymentAsset = 'USDC'): void {
    this.balances.set(balanceKey(network, address, asset), amount);
  }

  balanceOf(network: string, address: string, asset: PaymentAsset = 'USDC'): bigint {
    return this.balances.get(balanceKey(network, address, asset)) ?? this.options.defaultBalance ?? 0n;
  }

  /**
   * The next settle answers success:false with `reason`; with `transfers` the money moves anyway
   * (a transaction that was sent but whose confirmation wait ran out).
   */
  failNextSettle(reason: string, options: { transfers?: boolean } = {}): void {
    this.nextSettle = { kind: 'fail', reason, transfers: options.transfers ?? false };
  }

  /** The next settle throws SettlementIndeterminate; like a real chain, the transfer may still happen. */
  timeoutNextSettle(options: { transfers?: boolean } = {}): void {
    this.nextSettle = { kind: 'timeout', transfers: options.transfers ?? true };
  }

  async supported(): Promise<SupportedKind[]> {
    return Object.keys(NETWORKS).flatMap((network) => [
      { x402Version: 2, scheme: 'exact', network },
      { x402Version: 2, scheme: 'batch-settlement', network },
      { x402Version: 2, scheme: 'upto', network, extra: { facilitatorAddress: getAddress(this.upto.facilitatorAddress) } },
    ]);
  }

  async verify(payload: PaymentPayload, requirements: PaymentRequirements): Promise<VerifyResult> {
    this.verifyCalls++;
    if (requirements.scheme === 'batch-settlement') return this.batch.verify(payload, requirements);
    if (requirements.scheme === 'upto') return this.upto.verify(payload, requirements);
    return this.check(payload, requirements);
  }

  async settle(payload: PaymentPayload, requirements: PaymentRequirements): Promise<SettleResult> {
    this.settleCalls++;
    if (requirements.scheme === 'batch-settlement') {
      const planned = this.nextSettle;
      this.nextSettle = null;
      if (planned?.kind === 'timeout' && !planned.transfers) throw new SettlementIndeterminate('settlement timed out');
      const result = await this.batch.settle(payload, requirements);
      if (planned?.kind === 'timeout') throw new SettlementIndeterminate('settlement timed out');
      return result;
    }
    if (requirements.scheme === 'upto') return this.settleUpto(payload, requirements);
    const network = requirements.network;
    const planned = this.nextSettle;
    this.nextSettle = null;
    const verdict = await this.check(payload, requirements);
    if (!verdict.isValid) {
      return { success: false, errorReason: verdict.invalidReason, transaction: '', network, payer: verdict.payer };
    }
    const auth = (payload.payload as { authorization: Authorization }).authorization;
    const asset = assetAt(network as Network, requirements.asset)!;
    if (planned?.kind === 'fail') {
      const transaction = planned.transfers ? this.transfer(network, auth, asset) : '';
      return { success: false, errorReason: planned.reason, transaction, network, payer: verdict.payer };
    }
    if (planned?.kind === 'timeout' && !planned.transfers) throw new SettlementIndeterminate('settlement timed out');
    const transaction = this.transfer(network, auth, asset);
    if (planned?.kind === 'timeout') throw new SettlementIndeterminate('settlement timed out');
    return { success: true, transaction, network, payer: getAddress(auth.from) };
  }

  async authorization(network: string, authorizer: string, nonce: string, asset: PaymentAsset = 'USDC'): Promise<AuthorizationOnChain> {
    const blockTime = BigInt(Math.floor(this.options.clock.now().getTime() / 1000));
    if (this.cancelled.has(`${key(network, authorizer)}|${nonce.toLowerCase()}`)) return { state: 'cancelled', transaction: null, blockTime };
    const tx = this.settled.find(
      (t) => !t.scheme && t.network === network && t.asset === asset && t.from.toLowerCase() === authorizer.toLowerCase() && t.nonce.toLowerCase() === nonce.toLowerCase(),
    );
    return tx ? { state: 'used', transaction: tx.transaction, blockTime } : { state: 'unused', transaction: null, blockTime };
  }

  async permit2Transfer(network: Network, transfer: Permit2Transfer): Promise<AuthorizationOnChain> {
    return this.upto.read(network, transfer);
  }

  /** An upto settlement, failing or timing out as planned (a timeout or failure `transfers`: the transaction was mined anyway). */
  private async settleUpto(payload: PaymentPayload, requirements: PaymentRequirements): Promise<SettleResult> {
    const planned = this.nextSettle;
    this.nextSettle = null;
    if (planned && !planned.transfers) {
      if (planned.kind === 'timeout') throw new SettlementIndeterminate('settlement timed out');
      return { success: false, errorReason: planned.reason, transaction: '', network: requirements.network };
    }
    const result = await this.upto.settle(payload, requirements);
    if (planned?.kind === 'timeout') throw new SettlementIndeterminate('settlement timed out');
    if (planned?.kind === 'fail') return { ...result, success: false, errorReason: planned.reason };
    return result;
  }

  /** The payer cancels an authorization on "chain" (EIP-3009 cancelAuthorization). */
  cancel(network: string, authorizer: string, nonce: string): void {
    this.cancelled.add(`${key(network, authorizer)}|${nonce.toLowerCase()}`);
  }

  /**
   * Someone else submits a payment's authorization (it is a bearer instrument until
   * validBefore): the money moves whether or not the service settled it.
   */
  submit(payload: PaymentPayload): string {
    const auth = (payload.payload as { authorization: Authorization }).authorization;
    return this.transfer(payload.accepted.network, auth, assetAt(payload.accepted.network as Network, payload.accepted.asset) ?? 'USDC');
  }

  /** Whether an authorization nonce was used on "chain" (what a reconciler reads). */
  isNonceUsed(network: string, from: string, nonce: string): boolean {
    return this.usedNonces.has(`${key(network, from)}|${nonce.toLowerCase()}`);
  }

  private transfer(network: string, auth: Authorization, asset: PaymentAsset): string {
    const amount = BigInt(auth.value);
    this.fund(network, auth.from, this.balanceOf(network, auth.from, asset) - amount, asset);
    this.fund(network, auth.to, this.balanceOf(network, auth.to, asset) + amount, asset);
    this.usedNonces.add(`${key(network, auth.from)}|${auth.nonce.toLowerCase()}`);
    const transaction = `0x${createHash('sha256').update(`${network}|${auth.from}|${auth.nonce}`).digest('hex')}`;
    this.settled.push({ network, asset, from: getAddress(auth.from), to: getAddress(auth.to), amount, nonce: auth.nonce, transaction });
    return transaction;
  }

  private async check(payload: PaymentPayload, r: PaymentRequirements): Promise<VerifyResult> {
    const invalid = (invalidReason: string, payer?: string): VerifyResult => ({
      isValid: false,
      invalidReason,
      ...(payer ? { payer } : {}),
    });
    // v1 payments arrive mapped into v2's shapes (decision 0046): the same checks hold.
    if (payload.x402Version !== 2 && payload.x402Version !== 1) return invalid('invalid_x402_version');
    if (r.scheme !== 'exact' || payload.accepted?.scheme !== 'exact') return invalid('invalid_exact_evm_scheme');
    if (!isNetwork(r.network) || payload.accepted.network !== r.network) return invalid('invalid_exact_evm_network_mismatch');
    const info = NETWORKS[r.network];
    const asset = assetAt(r.network, r.asset);
    if (!asset || payload.accepted.asset?.toLowerCase() !== r.asset.toLowerCase()) {
      return invalid('invalid_exact_evm_payload_asset');
    }
    const body = payload.payload as { signature?: Hex; authorization?: Authorization };
    const auth = body.authorization;
    if (!auth || !body.signature) return invalid('invalid_exact_evm_payload');
    const payer = auth.from;
    let signer: string;
    try {
      signer = await recoverTypedDataAddress({
        domain: {
          name: String(r.extra.name),
          version: String(r.extra.version),
          chainId: info.chainId,
          verifyingContract: r.asset as Hex,
        },
        types: TRANSFER_WITH_AUTHORIZATION,
        primaryType: 'TransferWithAuthorization',
        message: {
          from: auth.from,
          to: auth.to,
          value: BigInt(auth.value),
          validAfter: BigInt(auth.validAfter),
          validBefore: BigInt(auth.validBefore),
          nonce: auth.nonce,
        },
        signature: body.signature,
      });
    } catch {
      return invalid('invalid_exact_evm_signature', payer);
    }
    if (signer.toLowerCase() !== auth.from.toLowerCase()) return invalid('invalid_exact_evm_signature', payer);
    if (auth.to.toLowerCase() !== r.payTo.toLowerCase()) return invalid('invalid_exact_evm_recipient_mismatch', payer);
    if (BigInt(auth.value) !== BigInt(r.amount)) return invalid('invalid_exact_evm_payload_authorization_value_mismatch', payer);
    const now = BigInt(Math.floor(this.options.clock.now().getTime() / 1000));
    if (BigInt(auth.validBefore) <= now) return invalid('invalid_exact_evm_payload_authorization_valid_before', payer);
    if (BigInt(auth.validAfter) > now) return invalid('invalid_exact_evm_payload_authorization_valid_after', payer);
    if (this.isNonceUsed(r.network, auth.from, auth.nonce) || this.cancelled.has(`${key(r.network, auth.from)}|${auth.nonce.toLowerCase()}`)) {
      return invalid('invalid_exact_evm_nonce_already_used', payer);
    }
    if (this.balanceOf(r.network, auth.from, asset) < BigInt(auth.value)) return invalid('invalid_exact_evm_insufficient_balance', payer);
    return { isValid: true, payer: getAddress(payer) };
  }
}
