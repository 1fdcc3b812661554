/**
 * The official x402 facilitator running in-process: @x402/core's x402Facilitator with
 * @x402/evm's exact scheme, one viem signer per network (the settlement key pays gas). Verify
 * simulates and settle submits and confirms a real transferWithAuthorization on any RPC — the
 * devnet or a Base node.
 */
import { x402Facilitator } from '@x402/core/facilitator';
import { toFacilitatorEvmSigner } from '@x402/evm';
import { ExactEvmScheme } from '@x402/evm/exact/facilitator';
import { createWalletClient, publicActions, type Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { FacilitatorError } from '../../../domain/errors.js';
import type { Network } from '../../../domain/network.js';
import {
  SettlementIndeterminate,
  type Facilitator,
  type PaymentPayload,
  type PaymentRequirements,
  type SettleResult,
  type SupportedKind,
  type VerifyResult,
} from '../../../ports/facilitator.js';
import { newNonceQueue, type NonceQueue } from '../../kit/evm/signed-transactions.js';
import { viemChain } from '../../kit/evm/viem-chain.js';
import { rpcTransport } from '../../kit/evm/rpc-transport.js';

export interface LocalFacilitatorOptions {
  /** Private key of the account that submits settlements and pays their gas. */
  settlementKey: Hex;
  /** JSON-RPC URL per network. */
  rpcUrls: Partial<Record<Network, string>>;
  /** The settlement key's nonce queue, shared with every other signer of that key in the process. */
  nonces?: NonceQueue;
  /** Bound on waiting for a settlement receipt; past it the outcome is indeterminate. */
  confirmationTimeoutMs?: number;
  /**
   * How often a settlement not mined at the first look is looked for again (default 250 ms).
   * viem's default for a chain of unknown block time is 4 s: a settlement that reached the node a
   * moment after its receipt was first asked for — one that waited behind a lower nonce of the
   * same key — stalled its request for 4 s.
   */
  receiptPollMs?: number;
}

type CoreFacilitatorTypes = Parameters<x402Facilitator['verify']>;

export class LocalFacilitator implements Facilitator {
  private readonly facilitator = new x402Facilitator();
  private readonly networks: Network[];

  constructor(options: LocalFacilitatorOptions) {
    // The settlement account takes its nonces from the same queue as every other signer of this key.
    const account = privateKeyToAccount(options.settlementKey, { nonceManager: options.nonces ?? newNonceQueue() });
    this.networks = Object.keys(options.rpcUrls) as Network[];
    for (const network of this.networks) {
      const rpcUrl = options.rpcUrls[network]!;
      const client = createWalletClient({
        account,
        chain: viemChain(network, rpcUrl),
        transport: rpcTransport(rpcUrl, { timeout: 10_000 }),
        pollingInterval: options.receiptPollMs ?? 250,
      }).extend(publicActions);
      const signer = toFacilitatorEvmSigner(
        { ...client, address: account.address } as unknown as Parameters<typeof toFacilitatorEvmSigner>[0],
        { confirmationTimeoutMs: options.confirmationTimeoutMs ?? 30_000 },
      );
      this.facilitator.register(network, new ExactEvmScheme(signer));
    }
  }

  async verify(payload: PaymentPayload, requirements: PaymentRequirements): Promise<VerifyResult> {
    try {
      return await this.facilitator.verify(...(([payload, requirements] as unknown) as CoreFacilitatorTypes));
    } catch (e) {
      throw new FacilitatorError(`The facilitator could not verify the payment: ${(e as Error).message.split('\n')[0]}`);
    }
  }

  async settle(payload: PaymentPayload, requirements: PaymentRequirements): Promise<SettleResult> {
    try {
      const result = await this.facilitator.settle(...(([payload, requirements] as unknown) as CoreFacilitatorTypes));
      return {
        success: result.success,
        transaction: result.transaction,
        network: result.network,
        ...(result.payer ? { payer: result.payer } : {}),
        ...(result.errorReason ? { errorReason: result.errorReason } : {}),
        ...(result.errorMessage ? { errorMessage: result.errorMessage } : {}),
      };
    } catch (e) {
      // A transaction may have been sent: only the chain knows now (the reconciler asks it).
      throw new SettlementIndeterminate(`settlement outcome unknown: ${(e as Error).message.split('\n')[0]}`, { cause: e });
    }
  }

  async supported(): Promise<SupportedKind[]> {
    return this.networks.map((network) => ({ x402Version: 2, scheme: 'exact', network }));
  }
}
