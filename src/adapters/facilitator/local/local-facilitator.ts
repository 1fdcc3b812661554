/**
 * The official x402 facilitator running in-process: @x402/core's x402Facilitator with
 * @x402/evm's exact scheme — v2, and v1 under v1's network names (decision 0046) — one viem signer
 * per network (the settlement key pays gas). Verify
 * simulates and settle submits and confirms a real transferWithAuthorization on any RPC — the
 * devnet or a Base node.
 *
 * Beside exact, for v2 only, @x402/evm's `batch-settlement` and `upto` schemes (decision 0073) with
 * the same signer: they call the x402 contracts at their canonical addresses (the devnet places
 * ours there). The batch-settlement receiver authorizer — the key whose signatures let claims and
 * cooperative refunds through, advertised as `receiverAuthorizer` — is the settlement key unless
 * another is given; the upto scheme's `facilitatorAddress` is the settlement key's address, the
 * one account its payers let settle.
 */
import { x402Facilitator } from '@x402/core/facilitator';
import { toFacilitatorEvmSigner } from '@x402/evm';
import { BatchSettlementEvmScheme } from '@x402/evm/batch-settlement/facilitator';
import { ExactEvmScheme } from '@x402/evm/exact/facilitator';
import { ExactEvmSchemeV1 } from '@x402/evm/exact/v1/facilitator';
import { UptoEvmScheme } from '@x402/evm/upto/facilitator';
import { createWalletClient, publicActions, type Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { CodeMemo } from './code-memo.js';
import { SettlementSender, type SettlementLog, type WriteContractArgs } from './settlement-sender.js';
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
import { newNonceQueue, type NonceQueue, type SignerOptions } from '../../kit/evm/signed-transactions.js';
import { viemChain } from '../../kit/evm/viem-chain.js';
import { rpcTransport } from '../../kit/evm/rpc-transport.js';
import { facilitatorRequest, fromV1Network, v1NetworkName } from '../../kit/x402/v1-wire.js';

export interface LocalFacilitatorOptions extends Pick<SignerOptions, 'droppedAfterBlocks'> {
  /** Private key of the account that submits settlements and pays their gas. */
  settlementKey: Hex;
  /**
   * Private key of the batch-settlement receiver authorizer (it signs the claims and cooperative
   * refunds of the channels that name it); default: the settlement key.
   */
  receiverAuthorizerKey?: Hex;
  /** JSON-RPC URL per network. */
  rpcUrls: Partial<Record<Network, string>>;
  /** The settlement key's nonce queue, shared with every other signer of that key in the process. */
  nonces?: NonceQueue;
  /** Bound on waiting for a settlement receipt; past it the outcome is indeterminate. */
  confirmationTimeoutMs?: number;
  /**
   * How often a settlement not mined at the first look is looked for again, at most (default
   * 250 ms; the first looks again come sooner, `lookDelay` in settlement-sender.ts). viem's
   * default for a chain of unknown block time is 4 s: a settlement that reached the node a
   * moment after its receipt was first asked for — one that waited behind a lower nonce of the
   * same key — stalled its request for 4 s.
   */
  receiptPollMs?: number;
  /**
   * A settlement not mined this long is checked for a nonce below it that was never sent, which
   * is then filled (settlement-sender.ts; default 2 s: past a block on a chain of 2-second blocks,
   * far past one on the devnet, which mines at once).
   */
  holeAfterMs?: number;
  /** Told when a settlement is signed again because another transaction took its nonce. */
  log?: SettlementLog;
  /** How long an account's code, once read, answers the scheme's repeated questions (code-memo.ts; default 5 s). */
  codeMemoMs?: number;
}

type CoreFacilitatorTypes = Parameters<x402Facilitator['verify']>;

export class LocalFacilitator implements Facilitator {
  private readonly facilitator = new x402Facilitator();
  private readonly networks: Network[];
  private readonly sender: SettlementSender;
  /** What the batch-settlement and upto schemes tell servers and clients to put in their offers. */
  private readonly schemeExtras: { batchSettlement: Record<string, unknown>; upto: Record<string, unknown> };

  constructor(options: LocalFacilitatorOptions) {
    // The settlement account takes its nonces from the same queue as every other signer of this key.
    const nonces = options.nonces ?? newNonceQueue();
    const account = privateKeyToAccount(options.settlementKey, { nonceManager: nonces });
    const pollMs = options.receiptPollMs ?? 250;
    // Settlements are sent by us, so a nonce another transaction took is signed again (settlement-sender.ts).
    this.sender = new SettlementSender(options.settlementKey, options.rpcUrls, nonces, {
      pollMs,
      holeAfterMs: options.holeAfterMs ?? 2_000,
      log: options.log ?? (() => undefined),
      droppedAfterBlocks: options.droppedAfterBlocks,
    });
    this.networks = Object.keys(options.rpcUrls) as Network[];
    const receiverAuthorizer = privateKeyToAccount(options.receiverAuthorizerKey ?? options.settlementKey);
    this.schemeExtras = { batchSettlement: { receiverAuthorizer: receiverAuthorizer.address }, upto: { facilitatorAddress: account.address } };
    for (const network of this.networks) {
      const rpcUrl = options.rpcUrls[network]!;
      const client = createWalletClient({
        account,
        chain: viemChain(network, rpcUrl),
        transport: rpcTransport(rpcUrl, { timeout: 10_000 }),
        pollingInterval: pollMs,
      }).extend(publicActions);
      const sender = this.sender;
      const codes = new CodeMemo((address) => client.getCode({ address }), { ttlMs: options.codeMemoMs ?? 5_000 });
      const signer = toFacilitatorEvmSigner(
        {
          ...client,
          address: account.address,
          getCode: (args: { address: Hex }) => codes.code(args.address),
          writeContract: (args: WriteContractArgs) => sender.writeContract(network, args),
          waitForTransactionReceipt: (args: { hash: Hex; timeout?: number }) => sender.waitForTransactionReceipt(network, args.hash, args.timeout ?? 30_000),
        } as unknown as Parameters<typeof toFacilitatorEvmSigner>[0],
        { confirmationTimeoutMs: options.confirmationTimeoutMs ?? 30_000 },
      );
      this.facilitator.register(network, new ExactEvmScheme(signer));
      this.facilitator.register(network, new BatchSettlementEvmScheme(signer, receiverAuthorizer));
      this.facilitator.register(network, new UptoEvmScheme(signer));
      // @x402/core types networks as CAIP-2; its v1 registry keys them by v1's names.
      this.facilitator.registerV1(v1NetworkName(network) as Parameters<x402Facilitator['registerV1']>[0], new ExactEvmSchemeV1(signer));
    }
  }

  async verify(payload: PaymentPayload, requirements: PaymentRequirements): Promise<VerifyResult> {
    try {
      return await this.facilitator.verify(...coreArguments(payload, requirements));
    } catch (e) {
      throw new FacilitatorError(`The facilitator could not verify the payment: ${(e as Error).message.split('\n')[0]}`);
    }
  }

  async settle(payload: PaymentPayload, requirements: PaymentRequirements): Promise<SettleResult> {
    try {
      const result = await this.facilitator.settle(...coreArguments(payload, requirements));
      const transaction = this.sender.finalHash(result.transaction);
      this.sender.forget(result.transaction);
      return {
        success: result.success,
        transaction,
        network: fromV1Network(result.network),
        ...(result.payer ? { payer: result.payer } : {}),
        ...(result.errorReason ? { errorReason: result.errorReason } : {}),
        ...(result.errorMessage ? { errorMessage: result.errorMessage } : {}),
        // batch-settlement and upto say what moved and the channel's state; exact says neither.
        ...(result.amount !== undefined ? { amount: result.amount } : {}),
        ...(result.extra !== undefined ? { extra: result.extra } : {}),
      };
    } catch (e) {
      // A transaction may have been sent: only the chain knows now (the reconciler asks it).
      throw new SettlementIndeterminate(`settlement outcome unknown: ${(e as Error).message.split('\n')[0]}`, { cause: e });
    }
  }

  async supported(): Promise<SupportedKind[]> {
    return this.networks.flatMap((network) => [
      { x402Version: 2, scheme: 'exact', network },
      { x402Version: 1, scheme: 'exact', network: v1NetworkName(network) },
      { x402Version: 2, scheme: 'batch-settlement', network, extra: { ...this.schemeExtras.batchSettlement } },
      { x402Version: 2, scheme: 'upto', network, extra: { ...this.schemeExtras.upto } },
    ]);
  }
}

/** A payment as @x402/core's facilitator takes it: a v1 payment in v1's shapes, so its v1 scheme handles it. */
function coreArguments(payload: PaymentPayload, requirements: PaymentRequirements): CoreFacilitatorTypes {
  const request = facilitatorRequest(payload, requirements);
  return [request.paymentPayload, request.paymentRequirements] as unknown as CoreFacilitatorTypes;
}
