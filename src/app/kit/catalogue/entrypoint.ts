/**
 * What a paid operation is (docs/api.md, "Paid endpoints"): its input schema, its price rule, the
 * checks run before a payment is requested (`prepare`) and the operation itself (`execute`). Each
 * room writes its own in its catalogue.ts (../../catalogue.ts assembles them); the HTTP adapter and
 * the payment pipeline are generic over them.
 */
import { checksummed } from '../address.js';
import type { z } from 'zod';
import { formatUsd } from '../../../domain/money.js';
import type { Network, PaymentAsset } from '../../../domain/network.js';
import type { PriceRule } from './operation.js';
import type { AppDeps } from '../deps.js';
import type { Settings } from '../settings.js';
import type { Payment } from '../../../domain/payment.js';
import { type Paid, type RefusedInCustody } from '../paid.js';

/** Who pays: the wallet (hint or verified payer) and its network. */
export interface Caller {
  wallet: string;
  network: Network;
  /**
   * Applying a settled payment (phase `apply`): when it was paid. What the payment was offered
   * at — a quote, a held price — is checked as of then, not now: a payment the reconciler
   * finishes after its quote expired was made while it held (its pool swap may be mined already).
   */
  paidAt?: Date;
  /** Applying a settled payment: its id, to find what custody recorded for it (a buy's pool swap, decision 0061). */
  paymentId?: string;
  /**
   * The payment this call is being paid with, once it is sent (admission, claim): its asset and
   * amount — a held authorization of that asset from the payer must leave room for it as well.
   */
  fee?: { asset: PaymentAsset; amount: bigint };
}

export interface Prepared {
  /** The price in USD micro-units; each offer of the 402 carries exactly this in its asset. */
  amount: bigint;
  /** The only network this operation can be paid on (a token's network), or null for either. */
  network: Network | null;
  /**
   * Applying a settled payment whose operation custody has carried out on chain already (a pool
   * swap recorded for it, decision 0061): what was paid is what it costs — its price is not
   * checked again — and it is booked as it was done.
   */
  done?: true;
  /**
   * The most a payer may authorize for this plan by the x402 `upto` scheme, in USD micro-units,
   * where the operation's price is a maximum (`Entrypoint.upTo`). Set by the payment pipeline
   * (payments/pipeline/pricing.ts) from the entry's rule, never by `prepare`.
   */
  maximum?: bigint;
}

/** A worked request and answer, for discovery documents (Bazaar's `info`): each room's are in its examples.ts. */
export interface EntrypointExample {
  input: Record<string, unknown>;
  output: Record<string, unknown>;
  /**
   * What the example costs in USD where its input sets the price (the buys): the price its 402 asks
   * (payments/example-probe.ts). A fixed price is the entrypoint's own.
   */
  priceUsd?: string;
}

export interface Entrypoint<I = unknown, P extends Prepared = Prepared, R = unknown> {
  kind: 'paid';
  name: string;
  operation: string;
  description: string;
  /** Its MCP tool: the name an agent calls, a short title, whether it only reads, and what to do first. */
  tool: { name: string; title: string; readOnly: boolean; howTo?: string };
  /** Its worked example (discovery documents); it must validate against its schemas. */
  example: EntrypointExample;
  /** Where it answers over HTTP besides `/entrypoints/<name>[/invoke]` (a create: `POST /tokens`). */
  alsoAt?: string;
  /** Fixed (a setting) or computed from the input (the buys). */
  priceRule: Exclude<PriceRule, { kind: 'free' }>;
  /** For the manifest: a fixed price in USD, or how the price is set. */
  price(settings: Settings): string;
  successStatus: 200 | 201;
  /**
   * Statuses it answers besides those of every paid operation (its success, 202, 400, 402, 403,
   * 404, 409, 413, 415, 429, 502, 503): an expired quote's 410, an image too complex's 422.
   */
  errors?: number[];
  /** The largest request body it takes, in bytes, when larger than a transport's default (an image upload). */
  bodyLimit?: number;
  inputSchema: z.ZodType;
  outputSchema: z.ZodType;
  parse(raw: unknown): I;
  /**
   * The rules and the price. `ask`: the 402 of a request without payment (a held price is offered
   * only while the live one is not lower). `apply`: a settled payment is about to be applied (by
   * the reconciler) — checks whose subject the operation itself performs (a sell's pull) are left to it.
   */
  prepare(deps: AppDeps, input: I, caller?: Caller, phase?: 'ask' | 'price' | 'apply'): Promise<P>;
  /**
   * The operation, applied with its payment (paid.ts); returns the result whose answer `paid.answer` stores.
   * On a refusal after it took something into custody (a sell's pulled tokens) it throws a
   * `RefusedInCustody` naming what to give back; the payment pipeline refunds the payment and
   * gives it back in one transaction (payments/pipeline/application.ts).
   */
  execute(deps: AppDeps, input: I, prepared: P, caller: Caller, paid: Paid<R>): Promise<R>;
  /**
   * What the operation must hold alone, taken for the payment as it is claimed, before its fee
   * settles — an order's or a pledge's held authorization (decision 0067) — so of rival requests
   * one goes on and the others are refused uncharged (REJECTED). `execute` takes it over from the payment.
   */
  reserve?(deps: AppDeps, input: I, prepared: P, payment: Payment): Promise<void>;
  /**
   * What custody took in for a settled payment of it before its request stopped — a sell's pulled
   * tokens, once the pull is mined — for a refusal met when the payment is applied again (a rule
   * changed since) to give back with its refund (decision 0061). Null: nothing taken.
   */
  takenInCustody?(deps: AppDeps, input: I, payment: Payment): Promise<Pick<RefusedInCustody, 'taken' | 'giveBack'> | null>;
  /**
   * Paid access that outlives the request (docs/api.md, "Sign-In-With-X"): a payer who proves
   * its wallet with Sign-In-With-X is served again without paying for INFO_ACCESS_SECONDS. Only
   * for reads.
   */
  grantsAccess?: { serve(deps: AppDeps, input: I): Promise<R> };
  /**
   * The price is a maximum (docs/payments.md "Pay up to"): what the operation costs is known when
   * it runs, so a payer may authorize up to this — the x402 `upto` scheme, offered beside the
   * exact price — for a plan priced at `prepared.amount`, and is charged that price. In USD
   * micro-units, never below `prepared.amount`. Absent: only the exact price is taken.
   */
  upTo?(settings: Settings, input: I, prepared: P): bigint;
}

/** An entrypoint of any input and result: the catalogue is heterogeneous by nature. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyEntrypoint = Entrypoint<any, any, any>;


/** A price line as the manifest states it: "0.01", or how the input sets it ("= usdAmount"). */
export const priceLine = (rule: PriceRule, settings: Settings): string =>
  rule.kind === 'fixed' ? formatUsd(rule.usd(settings)) : rule.kind === 'computed' ? rule.rule : 'free';

export const fixed = (usd: (settings: Settings) => bigint) => {
  const priceRule = { kind: 'fixed', usd } as const;
  return { priceRule, price: (settings: Settings) => priceLine(priceRule, settings) };
};

/** Where an entrypoint answers over HTTP (the manifest's `paths`). Its canonical resource is `/entrypoints/<name>`. */
export function entrypointPaths(e: Pick<AnyEntrypoint, 'name' | 'alsoAt'>): string[] {
  const paths = [`/entrypoints/${e.name}`, `/entrypoints/${e.name}/invoke`];
  return e.alsoAt ? [e.alsoAt, ...paths] : paths;
}


export const opt = <T>(v: string | undefined, f: (s: string) => T) => (v === undefined ? undefined : f(v));
export const referrerOf = (v: { referrer?: string | undefined }) => (v.referrer ? checksummed(v.referrer) : null);
