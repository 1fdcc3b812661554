/**
 * Held authorizations (docs/api.md "Orders", decision 0047): a wallet signs an
 * EIP-3009 `ReceiveWithAuthorization` of exactly an amount of USDC (or EURC) to custody, and the
 * service keeps the signature, unused, until a condition is met — an order's price crossed, a
 * raise's goal reached — then collects it (collect.ts). The money never leaves the wallet before.
 *
 * `to` is custody (the treasury key's account, `tokenIssuer.custody`): the one account that signs
 * the `receiveWithAuthorization` call, which the contract accepts only from its payee — so nobody
 * else can submit the transfer, and the signature is worth nothing to anyone who sees it.
 *
 * `checkHeldAuthorization` is every check that can be made before a payment is taken; each
 * refusal is HELD_AUTHORIZATION_INVALID with its own `reason` (INSUFFICIENT_BALANCE for the balance).
 */
import { HeldAuthorizationInvalid, InsufficientBalance } from '../../domain/errors.js';
import { formatTokens, formatUsd } from '../../domain/money.js';
import { ALL_NETWORKS, NETWORKS, PAYMENT_ASSETS, type Network, type PaymentAsset } from '../../domain/network.js';
import {
  receiveAuthorizationTypedData,
  type Eip3009Token,
  type ReceiveAuthorizationTypedData,
  type TokenAuthorization,
} from '../../domain/token-authorization.js';
import { readChain } from '../kit/availability.js';
import type { AppDeps } from '../kit/deps.js';

/** A held authorization has the shape of a sell's token authorization; only its token differs. */
export type HeldAuthorization = TokenAuthorization;

/** The authorization as JSON carries it: every number a decimal string. */
export interface HeldAuthorizationFields {
  from: string;
  to: string;
  value: string;
  validAfter: string;
  validBefore: string;
  nonce: string;
}

/** The stablecoin `asset` on `network` as an EIP-3009 token: address, EIP-712 name and version. */
export function stablecoin(network: Network, asset: PaymentAsset): Eip3009Token & { address: `0x${string}` } {
  const info = NETWORKS[network].assets[asset];
  return { address: info.address, name: info.eip712.name, version: info.eip712.version };
}

const unixSeconds = (d: Date): bigint => BigInt(Math.floor(d.getTime() / 1000));
const same = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();

/**
 * The typed data a wallet signs so custody may collect exactly `amount` of `asset` from it, valid
 * until `validUntil` (rounded up to the second), with a fresh nonce; and the fields to send back
 * with `signature` added. Nothing is read from the chain.
 */
export function heldAuthorizationTypedData(
  deps: Pick<AppDeps, 'tokenIssuer' | 'ids'>,
  q: { network: Network; asset: PaymentAsset; wallet: string; amount: bigint; validUntil: Date },
): { typedData: Omit<ReceiveAuthorizationTypedData, 'message'> & { message: HeldAuthorizationFields }; authorization: HeldAuthorizationFields } {
  const message = {
    from: q.wallet,
    to: deps.tokenIssuer.custody(q.network),
    value: q.amount,
    validAfter: 0n,
    validBefore: BigInt(Math.ceil(q.validUntil.getTime() / 1000)),
    nonce: deps.ids.nonce32(),
  };
  const typed = receiveAuthorizationTypedData({ chainId: NETWORKS[q.network].chainId, token: stablecoin(q.network, q.asset), message });
  const fields = heldAuthorizationFields(message);
  return { typedData: { ...typed, message: fields }, authorization: fields };
}

export function heldAuthorizationFields(a: Omit<HeldAuthorization, 'signature'>): HeldAuthorizationFields {
  return {
    from: a.from,
    to: a.to,
    value: a.value.toString(),
    validAfter: a.validAfter.toString(),
    validBefore: a.validBefore.toString(),
    nonce: a.nonce,
  };
}

/** Who pays for an order or a pledge, as the payment pipeline knows them (kit/catalogue/entrypoint.ts `Caller`). */
export interface Payer {
  wallet: string;
  network: Network;
  /** The payment being made, once it is sent: its asset and amount. */
  fee?: { asset: PaymentAsset; amount: bigint } | undefined;
}

/**
 * The fee the payer pays from the balance a held authorization of `asset` must be collected
 * from: when the payer is the authorization's own wallet and pays in that asset (decision 0067).
 */
export function ownFee(payer: Payer | undefined, wallet: string, asset: PaymentAsset): bigint {
  return payer?.fee?.asset === asset && same(payer.wallet, wallet) ? payer.fee.amount : 0n;
}

export interface HeldCheck {
  network: Network;
  asset: PaymentAsset;
  /** Who must have signed it (the order's or pledge's wallet). */
  wallet: string;
  /** Exactly what it must move, in the asset's smallest units. */
  amount: bigint;
  authorization: HeldAuthorization;
  /** It must stay usable at least until then (the order's expiry, the raise's end). */
  validUntil: Date;
  /**
   * What the same wallet pays from the same balance before this can be collected: its own fee
   * for the order or pledge, paid in this very asset. The balance must hold both.
   */
  alsoPays?: bigint | undefined;
}

/**
 * Every check a held authorization must pass before a payment is taken: who signed it and for
 * what, that custody can submit it, that its window covers `validUntil`, that its nonce is unused
 * on chain and that the wallet holds the amount now. Throws the refusal; returns nothing.
 */
export async function checkHeldAuthorization(deps: Pick<AppDeps, 'tokenIssuer' | 'clock'>, c: HeldCheck): Promise<void> {
  await checkReceiveAuthorization(deps, {
    ...c,
    token: stablecoin(c.network, c.asset),
    what: `${formatUsd(c.amount)} ${c.asset} (${c.amount} units)`,
    format: formatUsd,
    asset: c.asset,
    misdirected: () => misdirected(deps, c),
  });
}

/**
 * The same checks for a held authorization of a launched token (a stop-loss's or take-profit's
 * tokens): the token's own EIP-712 domain, amounts in token units.
 */
export function checkHeldTokenAuthorization(
  deps: Pick<AppDeps, 'tokenIssuer' | 'clock'>,
  c: Omit<HeldCheck, 'asset'> & { token: { address: string; name: string }; short?: ReceiveCheck['short'] },
): Promise<void> {
  return checkReceiveAuthorization(deps, { ...c, what: `${formatTokens(c.amount)} tokens (${c.amount} units)`, format: formatTokens });
}

interface ReceiveCheck extends Omit<HeldCheck, 'asset'> {
  token: Eip3009Token;
  /** The amount as the refusal names it. */
  what: string;
  format: (units: bigint) => string;
  /** The stablecoin it moves, named by a balance refusal (none: a launched token's tokens). */
  asset?: PaymentAsset;
  /** The refusal for a signature that does not recover to `from` here (default: `signature`). */
  misdirected?: () => Promise<HeldAuthorizationInvalid>;
  /** Told the balance when it holds less than needed, before INSUFFICIENT_BALANCE: may refuse for a reason of its own (tokens locked). */
  short?: (balance: bigint, needed: bigint) => void;
}

async function checkReceiveAuthorization(deps: Pick<AppDeps, 'tokenIssuer' | 'clock'>, c: ReceiveCheck): Promise<void> {
  const a = c.authorization;
  const invalid = (reason: string, message: string) => new HeldAuthorizationInvalid(reason, message);
  const signer = await deps.tokenIssuer.recoverReceiveAuthorizer(c.network, c.token, a);
  if (!signer || !same(signer, a.from)) {
    throw c.misdirected ? await c.misdirected() : invalid('signature', 'The signature is not a ReceiveWithAuthorization by `from` on this token.');
  }
  if (!same(a.from, c.wallet)) throw invalid('wallet', `The authorization is signed by ${a.from}, not by the wallet ${c.wallet}.`);
  if (a.value !== c.amount) throw invalid('value', `The authorization must move exactly ${c.what}, not ${a.value} units.`);
  const custody = deps.tokenIssuer.custody(c.network);
  if (!same(a.to, custody)) throw invalid('to', `The authorization must pay the service's custody, ${custody}: only the payee can submit a ReceiveWithAuthorization.`);
  const now = unixSeconds(deps.clock.now());
  if (a.validBefore <= now) throw invalid('expired', 'The authorization has expired (validBefore).');
  if (a.validBefore < BigInt(Math.ceil(c.validUntil.getTime() / 1000))) {
    throw invalid('valid_before', `The authorization must stay valid until ${c.validUntil.toISOString()} (validBefore ≥ that, in Unix seconds).`);
  }
  if (a.validAfter >= now) throw invalid('not_yet_valid', 'The authorization is not valid yet (validAfter must be in the past).');
  const [used, balance] = await readChain(c.network, () =>
    Promise.all([deps.tokenIssuer.authorizationState(c.network, c.token.address, a.from, a.nonce), deps.tokenIssuer.balanceOf(c.network, c.token.address, a.from)]),
  );
  if (used) throw invalid('used', 'The authorization nonce was already used or cancelled on chain.');
  const needed = a.value + (c.alsoPays ?? 0n);
  if (balance < needed) c.short?.(balance, needed);
  if (balance < needed) throw new InsufficientBalance(c.format(needed), c.format(balance), c.asset);
}

/**
 * A signature that does not recover to `from` here: the same authorization signed for another
 * network or asset says so (`network`, `asset`); anything else is `signature`.
 */
async function misdirected(deps: Pick<AppDeps, 'tokenIssuer'>, c: HeldCheck): Promise<HeldAuthorizationInvalid> {
  const a = c.authorization;
  for (const network of ALL_NETWORKS) {
    for (const asset of PAYMENT_ASSETS) {
      if (network === c.network && asset === c.asset) continue;
      const signer = await deps.tokenIssuer.recoverReceiveAuthorizer(network, stablecoin(network, asset), a).catch(() => null);
      if (!signer || !same(signer, a.from)) continue;
      return network !== c.network
        ? new HeldAuthorizationInvalid('network', `The authorization is signed for ${asset} on ${network}, not for ${c.asset} on ${c.network}.`)
        : new HeldAuthorizationInvalid('asset', `The authorization is signed for ${asset}, not for ${c.asset}.`);
    }
  }
  return new HeldAuthorizationInvalid('signature', `The signature is not a ReceiveWithAuthorization of ${c.asset} on ${c.network} by \`from\`.`);
}
