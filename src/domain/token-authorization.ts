/**
 * The seller's EIP-3009 `ReceiveWithAuthorization` on a launched token (docs/api.md "Tokens on chain"), and the
 * EIP-712 typed data a wallet signs for it. Plain data, so the app can hand the typed data out
 * (GET /api/tokens/:id/sell-authorization) without a chain library.
 */

/** A holder's signed permission for `to` (custody) to pull `value` token units from `from`. */
export interface TokenAuthorization {
  from: string;
  to: string;
  /** Token units (1e-18). */
  value: bigint;
  /** Unix seconds; the pull is valid strictly after. */
  validAfter: bigint;
  /** Unix seconds; the pull is valid strictly before. */
  validBefore: bigint;
  /** 0x + 64 hex, chosen by the signer; usable once. */
  nonce: string;
  /** 0x + 130 hex (r, s, v). */
  signature: string;
}

/** Every LaunchToken's EIP-712 domain version (docs/api.md "Tokens on chain"); its name is the token's name. */
export const LAUNCH_TOKEN_EIP712_VERSION = '1';
export const LAUNCH_TOKEN_DECIMALS = 18;

/** EIP712Domain is left out: viem and ethers derive it from `domain` (a raw `eth_signTypedData_v4` call adds it). */
export const RECEIVE_WITH_AUTHORIZATION_TYPES = {
  ReceiveWithAuthorization: [
    { name: 'from', type: 'address' },
    { name: 'to', type: 'address' },
    { name: 'value', type: 'uint256' },
    { name: 'validAfter', type: 'uint256' },
    { name: 'validBefore', type: 'uint256' },
    { name: 'nonce', type: 'bytes32' },
  ],
} as const;

/** An authorization as JSON and HTTP carry it (amounts and times as decimal strings). */
export type TokenAuthorizationText = Record<keyof TokenAuthorization, string>;

/** From decimal strings (a request's body, a stored row) to exact values. */
export const authorizationFromText = (a: TokenAuthorizationText): TokenAuthorization => ({
  ...a,
  value: BigInt(a.value),
  validAfter: BigInt(a.validAfter),
  validBefore: BigInt(a.validBefore),
});

/** To decimal strings, as JSON carries them. */
export const authorizationToText = (a: TokenAuthorization): TokenAuthorizationText => ({
  ...a,
  value: a.value.toString(),
  validAfter: a.validAfter.toString(),
  validBefore: a.validBefore.toString(),
});

export type ReceiveAuthorizationMessage = Omit<TokenAuthorization, 'signature'>;

export interface ReceiveAuthorizationTypedData {
  domain: { name: string; version: string; chainId: number; verifyingContract: string };
  types: typeof RECEIVE_WITH_AUTHORIZATION_TYPES;
  primaryType: 'ReceiveWithAuthorization';
  message: ReceiveAuthorizationMessage;
}

/**
 * An EIP-3009 token's EIP-712 domain fields besides the chain: its name, and its version — "1"
 * for a LaunchToken (the default), "2" for Circle's USDC and EURC (held authorizations, src/app/held).
 */
export interface Eip3009Token {
  address: string;
  name: string;
  version?: string;
}

/** What a holder signs to let custody pull `message.value` of `token` on chain `chainId`. */
export function receiveAuthorizationTypedData(args: {
  chainId: number;
  token: Eip3009Token;
  message: ReceiveAuthorizationMessage;
}): ReceiveAuthorizationTypedData {
  const { from, to, value, validAfter, validBefore, nonce } = args.message;
  const version = args.token.version ?? LAUNCH_TOKEN_EIP712_VERSION;
  return {
    domain: { name: args.token.name, version, chainId: args.chainId, verifyingContract: args.token.address },
    types: RECEIVE_WITH_AUTHORIZATION_TYPES,
    primaryType: 'ReceiveWithAuthorization',
    message: { from, to, value, validAfter, validBefore, nonce },
  };
}
