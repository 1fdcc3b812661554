/**
 * GET /api/tokens/:id/sell-authorization (docs/api.md "token_sell"): the EIP-712 typed data a wallet signs so
 * custody may pull `tokens` of it for a sell — a fresh nonce, valid for ten minutes — and the
 * `tokenAuthorization` to send back with the signature added.
 */
import { formatTokens } from '../../domain/money.js';
import { NETWORKS } from '../../domain/network.js';
import { receiveAuthorizationTypedData } from '../../domain/token-authorization.js';
import { readChain } from '../kit/availability.js';
import type { AppDeps } from '../kit/deps.js';
import { deployedToken, loadToken } from './load-token.js';

export const SELL_AUTHORIZATION_TTL_SECONDS = 600n;

export async function sellAuthorization(deps: Pick<AppDeps, 'uow' | 'clock' | 'ids' | 'tokenIssuer' | 'availability'>, q: { tokenId: string; wallet: string; tokens: bigint }) {
  // Any deployed token, whatever its venue: every sell starts with custody's pull of the tokens.
  const token = deployedToken(await deps.uow.run((s) => loadToken(s, q.tokenId)));
  await deps.availability?.usable([token.network]); // what it returns is for a sell: 503 while the sell could not be paid
  const now = BigInt(Math.floor(deps.clock.now().getTime() / 1000));
  const message = {
    from: q.wallet,
    to: deps.tokenIssuer.custody(token.network),
    value: q.tokens,
    validAfter: 0n,
    validBefore: now + SELL_AUTHORIZATION_TTL_SECONDS,
    nonce: deps.ids.nonce32(),
  };
  const typed = receiveAuthorizationTypedData({
    chainId: NETWORKS[token.network].chainId,
    token: { address: token.address, name: token.name },
    message,
  });
  const strings = {
    from: message.from,
    to: message.to,
    value: message.value.toString(),
    validAfter: message.validAfter.toString(),
    validBefore: message.validBefore.toString(),
    nonce: message.nonce,
  };
  return {
    tokenId: token.tokenId,
    network: token.network,
    tokens: formatTokens(q.tokens),
    onChainBalance: formatTokens(await readChain(token.network, () => deps.tokenIssuer.balanceOf(token.network, token.address, q.wallet))),
    expiresAt: new Date(Number(message.validBefore) * 1000).toISOString(),
    /** Sign this (eth_signTypedData_v4, viem signTypedData). */
    typedData: { ...typed, message: strings },
    /** Send this as the sell's `tokenAuthorization`, with `signature` added. */
    tokenAuthorization: strings,
  };
}
