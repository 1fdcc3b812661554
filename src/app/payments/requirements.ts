/**
 * x402 v2 payment requirements for a price (docs/payments.md): scheme `exact`, the asset (USDC or
 * EURC) on the network, the amount in its atomic units, the treasury as payTo, 60 s, and the
 * asset's EIP-712 domain in `extra`. The 402 that lists them is the pipeline's challenge
 * (pipeline/challenge.ts).
 */
import { NETWORKS, type Network, type PaymentAsset } from '../../domain/network.js';
import type { PaymentRequirements, ResourceInfo } from '../../ports/facilitator.js';
import { checksummed } from '../kit/address.js';
import type { Settings } from '../kit/settings.js';

export const X402_VERSION = 2;
/**
 * The versions a payment may come in: v2, and v1 — which its transport maps into v2's shapes
 * (`accepted` rebuilt from the authorization, `resource` the URL it was sent to) and a facilitator
 * adapter sends on the facilitator's v1 path (decision 0046). The steps are the same for both.
 */
export const PAYMENT_X402_VERSIONS: readonly number[] = [1, X402_VERSION];
export const MAX_TIMEOUT_SECONDS = 60;

export interface PaymentRequiredObject {
  x402Version: number;
  error?: string;
  resource: ResourceInfo;
  accepts: PaymentRequirements[];
}

export function requirementsFor(network: Network, amount: bigint, payTo: string, asset: PaymentAsset = 'USDC'): PaymentRequirements {
  const info = NETWORKS[network].assets[asset];
  return {
    scheme: 'exact',
    network,
    asset: info.address,
    amount: amount.toString(),
    payTo,
    maxTimeoutSeconds: MAX_TIMEOUT_SECONDS,
    extra: { name: info.eip712.name, version: info.eip712.version },
  };
}

/** How many calls at its price the batch-settlement offer suggests a first deposit covers (`extra.minDeposit`, the official default). */
export const MIN_DEPOSIT_CALLS = 10n;

/**
 * The same price offered by the x402 `batch-settlement` scheme (docs/payments.md "Pay once, call
 * many"): the requirements of `exact` with the scheme's own `extra` — the asset's EIP-712 domain
 * (its deposits are EIP-3009 authorizations), the receiver authorizer that signs claims and
 * refunds, the shortest withdraw delay a channel may have (where it is not the default), and the
 * first deposit it suggests — as the service's settings say, for the network of `exact`.
 */
export function batchRequirementsFor(exact: PaymentRequirements, batch: NonNullable<Settings['batchSettlement']>): PaymentRequirements {
  return {
    ...exact,
    scheme: 'batch-settlement',
    extra: {
      ...exact.extra,
      receiverAuthorizer: batch.receiverAuthorizer[exact.network as Network],
      // The scheme's defaults are left out — every byte of a 402's header counts against a
      // proxy's 4 KiB (docs/operations.md "Behind a proxy"): deposits by EIP-3009, and a
      // withdraw delay of 900 s (the official client's MIN_WITHDRAW_DELAY).
      ...(batch.withdrawDelaySeconds === DEFAULT_WITHDRAW_DELAY ? {} : { withdrawDelay: batch.withdrawDelaySeconds }),
      // A hint, as the official server writes it: a first deposit worth ten calls at this price.
      minDeposit: (BigInt(exact.amount) * MIN_DEPOSIT_CALLS).toString(),
    },
  };
}

/** The batch-settlement scheme's default withdraw delay (the official client's MIN_WITHDRAW_DELAY): an offer names another. */
export const DEFAULT_WITHDRAW_DELAY = 900;

/**
 * A price that is a maximum offered by the x402 `upto` scheme (docs/payments.md "Pay up to"): the
 * requirements of `exact` for `maximum` units, with the `extra` the official upto server writes —
 * the asset's EIP-712 domain (the EIP-2612 permit a payer without a Permit2 approval signs is in
 * it), `assetTransferMethod: permit2` and the facilitator's address, which the payer's Permit2
 * witness names as the one account that may settle it.
 */
export function uptoRequirementsFor(exact: PaymentRequirements, maximum: bigint, facilitatorAddress: string): PaymentRequirements {
  return {
    ...exact,
    scheme: UPTO,
    amount: maximum.toString(),
    extra: { ...exact.extra, assetTransferMethod: 'permit2', facilitatorAddress: checksummed(facilitatorAddress) },
  };
}

export const UPTO = 'upto';

const same = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();

/** The requirement a payment was signed against, if it is one of ours exactly. */
export function matchRequirements(
  accepts: PaymentRequirements[],
  accepted: Partial<PaymentRequirements> | undefined,
): PaymentRequirements | undefined {
  if (!accepted) return undefined;
  return accepts.find(
    (r) =>
      r.scheme === accepted.scheme &&
      r.network === accepted.network &&
      typeof accepted.asset === 'string' &&
      same(r.asset, accepted.asset) &&
      typeof accepted.payTo === 'string' &&
      same(r.payTo, accepted.payTo) &&
      r.amount === accepted.amount,
  );
}
