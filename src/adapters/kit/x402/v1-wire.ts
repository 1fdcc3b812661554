/**
 * x402 v1 beside v2 (decision 0046): the v1 wire shapes, v1's network names, and the mappings
 * between v1 and the v2 shapes the payment pipeline works on. A v1 payment is mapped into the
 * pipeline's payment (`fromV1Payment`) and goes through the very same steps; a facilitator adapter
 * sends it back out on the facilitator's v1 path (`toV1Payment`, `toV1Requirements`).
 *
 * A v1 payload names only its scheme and network, not its asset, amount or recipient: those are
 * what the EIP-3009 authorization itself signs, and the asset is the one v1 offer per network —
 * USDC (`v1Accepts`). What v1 cannot carry (extensions: Sign-In-With-X, payment identifiers, signed
 * offers) is not offered to it.
 */
import { assetAt, isNetwork, NETWORKS, PRODUCTION, TESTNET, type Network } from '../../../domain/network.js';
import type { PaymentPayload, PaymentRequirements, ResourceInfo } from '../../../ports/facilitator.js';

export const X402_V1 = 1;

/** v1's names of our two networks (the legacy `x402` package's `NetworkSchema`). */
export const V1_NETWORK_NAMES: Readonly<Record<Network, 'base' | 'base-sepolia'>> = { [PRODUCTION]: 'base', [TESTNET]: 'base-sepolia' };
export type V1Network = (typeof V1_NETWORK_NAMES)[Network];

export function v1NetworkName(network: Network): V1Network {
  return V1_NETWORK_NAMES[network];
}

/** The CAIP-2 network of a v1 name, if it is one of ours. */
export function networkOfV1(name: unknown): Network | undefined {
  return (Object.keys(V1_NETWORK_NAMES) as Network[]).find((n) => V1_NETWORK_NAMES[n] === name);
}

/** A v1 `PaymentRequirements` (x402 v1 specification, §5.1). */
export interface V1PaymentRequirements {
  scheme: string;
  network: string;
  maxAmountRequired: string;
  resource: string;
  description: string;
  mimeType: string;
  payTo: string;
  maxTimeoutSeconds: number;
  asset: string;
  extra: { name: string; version: string };
}

/** A v1 `PaymentPayload`: what `X-PAYMENT` carries, base64 JSON. */
export interface V1PaymentPayload {
  x402Version: 1;
  scheme: string;
  network: string;
  payload: Record<string, unknown>;
}

/** One v1 requirement from one of ours (v2), for `resource`. */
export function toV1Requirements(r: PaymentRequirements, resource: ResourceInfo): V1PaymentRequirements {
  return {
    scheme: r.scheme,
    network: isNetwork(r.network) ? v1NetworkName(r.network) : r.network,
    maxAmountRequired: r.amount,
    resource: resource.url,
    description: resource.description ?? '',
    mimeType: resource.mimeType ?? 'application/json',
    payTo: r.payTo,
    maxTimeoutSeconds: r.maxTimeoutSeconds,
    asset: r.asset,
    extra: { name: String(r.extra.name), version: String(r.extra.version) },
  };
}

/** What a v1 client reads from a 402 (ours, v2, in `required`): the USDC offers, one per network, in v1's form. */
export function v1Accepts(required: { resource: ResourceInfo; accepts: readonly PaymentRequirements[] }): V1PaymentRequirements[] {
  return required.accepts.filter((r) => r.scheme === 'exact' && isNetwork(r.network) && assetAt(r.network, r.asset) === 'USDC').map((r) => toV1Requirements(r, required.resource));
}

/** The payload a v1 facilitator verifies and settles, from a pipeline payment mapped from v1. */
export function toV1Payment(p: PaymentPayload): V1PaymentPayload {
  const network = p.accepted.network;
  return { x402Version: X402_V1, scheme: p.accepted.scheme, network: isNetwork(network) ? v1NetworkName(network) : network, payload: p.payload };
}

/**
 * A v1 payment as the pipeline's payment: `accepted` is the USDC offer on its network as the
 * authorization fills it in (amount `value`, recipient `to`: the binding then holds both to the
 * price and the treasury as for v2), and `resource` the URL it was sent to — v1 does not name one.
 */
export function fromV1Payment(v1: V1PaymentPayload & { network: string }, resourceUrl: string, maxTimeoutSeconds: number): PaymentPayload {
  const network = networkOfV1(v1.network);
  if (!network) throw new Error(`not a v1 network of ours: ${v1.network}`);
  const usdc = NETWORKS[network].assets.USDC;
  const auth = (v1.payload.authorization ?? {}) as { value?: unknown; to?: unknown };
  return {
    x402Version: X402_V1,
    resource: { url: resourceUrl },
    accepted: {
      scheme: v1.scheme,
      network,
      asset: usdc.address,
      amount: typeof auth.value === 'string' ? auth.value : '',
      payTo: typeof auth.to === 'string' ? auth.to : '',
      maxTimeoutSeconds,
      extra: { name: usdc.eip712.name, version: usdc.eip712.version },
    },
    payload: v1.payload,
  };
}

/** A settlement a v1 facilitator answered, its network back to CAIP-2. */
export function fromV1Network(network: string): string {
  return networkOfV1(network) ?? network;
}

/**
 * What a facilitator is sent for a payment (its HTTP body, or the arguments of @x402/core's
 * x402Facilitator): v2's shapes as they are, v1's for a payment mapped from v1 — its v1 path.
 */
export function facilitatorRequest(
  payload: PaymentPayload,
  requirements: PaymentRequirements,
): { x402Version: number; paymentPayload: PaymentPayload | V1PaymentPayload; paymentRequirements: PaymentRequirements | V1PaymentRequirements } {
  if (payload.x402Version !== X402_V1) return { x402Version: payload.x402Version, paymentPayload: payload, paymentRequirements: requirements };
  return { x402Version: X402_V1, paymentPayload: toV1Payment(payload), paymentRequirements: toV1Requirements(requirements, payload.resource ?? { url: '' }) };
}
