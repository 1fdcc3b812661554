/**
 * Tokens on chain in tests: run the deployment and delivery outboxes until they rest, and sign
 * a seller's ReceiveWithAuthorization the way a wallet would (viem signTypedData over the typed
 * data the service hands out).
 */
import type { PrivateKeyAccount } from 'viem/accounts';
import { DeliveryWorker, DeploymentWorker } from '../../src/app/workers/token-workers.js';
import { NETWORKS } from '../../src/domain/network.js';
import { receiveAuthorizationTypedData, type TokenAuthorization } from '../../src/domain/token-authorization.js';
import type { Clock } from '../../src/ports/clock.js';
import type { TokenIssuer } from '../../src/ports/token-issuer.js';
import type { UnitOfWork } from '../../src/ports/unit-of-work.js';
import { devAccount } from './x402-client.js';

const silent = { debug() {}, info() {}, warn() {}, error() {} };

/** Deploys every created token and delivers every buy (passes until nothing moves). */
export async function settleTokens(deps: { uow: UnitOfWork; clock: Clock; tokenIssuer: TokenIssuer }, passes = 10): Promise<void> {
  const outbox = { uow: deps.uow, clock: deps.clock, logger: silent, maxAttempts: 5, backoffBaseMs: 0, backoffMaxMs: 0, confirmPollMs: 0, stuckAfterMs: 60_000 };
  const deployments = new DeploymentWorker({ ...outbox, issuer: deps.tokenIssuer });
  const deliveries = new DeliveryWorker({ ...outbox, issuer: deps.tokenIssuer });
  for (let i = 0; i < passes; i++) {
    const moved = (await deployments.runOnce(100)) + (await deliveries.runOnce(100));
    if (moved === 0) return;
  }
}

/** The anvil accounts the tests use as wallets, by address. */
const ACCOUNTS = new Map(Array.from({ length: 10 }, (_, i) => devAccount(i)).map((a) => [a.address.toLowerCase(), a]));
export const accountOf = (wallet: string): PrivateKeyAccount => {
  const a = ACCOUNTS.get(wallet.toLowerCase());
  if (!a) throw new Error(`no key for ${wallet}`);
  return a;
};

/** A ReceiveWithAuthorization of `tokens` units of `token` from `wallet` to custody, signed by `wallet`. */
export async function signSell(args: {
  wallet: string;
  /** `version`: "2" for USDC and EURC (a held authorization); a LaunchToken's "1" when absent. */
  token: { network: keyof typeof NETWORKS; address: string; name: string; version?: string };
  custody: string;
  tokens: bigint;
  now: Date;
  over?: Partial<Omit<TokenAuthorization, 'signature'>>;
  signer?: PrivateKeyAccount;
}): Promise<TokenAuthorization> {
  const seconds = BigInt(Math.floor(args.now.getTime() / 1000));
  const message = {
    from: accountOf(args.wallet).address,
    to: args.custody,
    value: args.tokens,
    validAfter: seconds - 60n,
    validBefore: seconds + 600n,
    nonce: `0x${[...crypto.getRandomValues(new Uint8Array(32))].map((b) => b.toString(16).padStart(2, '0')).join('')}`,
    ...args.over,
  };
  const typed = receiveAuthorizationTypedData({ chainId: NETWORKS[args.token.network].chainId, token: args.token, message });
  const signature = await (args.signer ?? accountOf(args.wallet)).signTypedData({
    domain: { ...typed.domain, verifyingContract: typed.domain.verifyingContract as `0x${string}` },
    types: typed.types,
    primaryType: typed.primaryType,
    message: { ...typed.message, from: typed.message.from as `0x${string}`, to: typed.message.to as `0x${string}`, nonce: typed.message.nonce as `0x${string}` },
  });
  return { ...message, signature };
}

/**
 * A sell's body as a wallet builds it against the running service: the typed data from
 * GET /api/tokens/:id/sell-authorization, signed with viem's signTypedData.
 */
export async function signedSellBody(
  baseUrl: string,
  account: PrivateKeyAccount,
  tokenId: string,
  tokens: string,
  extra: Record<string, unknown> = {},
): Promise<{ tokenId: string; tokens: string; tokenAuthorization: Record<string, string> } & Record<string, unknown>> {
  const res = await fetch(`${baseUrl}/api/tokens/${tokenId}/sell-authorization?wallet=${account.address}&tokens=${tokens}`);
  const body = (await res.json()) as { data: { typedData: any; tokenAuthorization: Record<string, string> } };
  if (res.status !== 200) throw new Error(`sell-authorization: ${res.status} ${JSON.stringify(body)}`);
  const { typedData, tokenAuthorization } = body.data;
  const signature = await account.signTypedData({
    domain: typedData.domain,
    types: typedData.types,
    primaryType: typedData.primaryType,
    message: {
      ...typedData.message,
      value: BigInt(typedData.message.value),
      validAfter: BigInt(typedData.message.validAfter),
      validBefore: BigInt(typedData.message.validBefore),
    },
  });
  return { tokenId, tokens, ...extra, tokenAuthorization: { ...tokenAuthorization, signature } };
}
