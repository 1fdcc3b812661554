import type { Network } from '../domain/network.js';
import type { Eip3009Token, TokenAuthorization } from '../domain/token-authorization.js';
import type { PreparedTransfer, TransferStatus } from './payout-sender.js';

/** What a token is deployed with; its address follows from these and the custody (docs/api.md "Tokens on chain"). */
export interface TokenSpec {
  tokenId: string;
  name: string;
  symbol: string;
  /** Token units (1e-18), all minted to custody at deployment. */
  totalSupply: bigint;
}

/** One transfer of a batch: `amount` units of a deployed token (its address and name) from custody to `to`. */
export interface CustodyTransfer {
  token: { address: string; name: string };
  to: string;
  amount: bigint;
}

/** A transaction signed by custody, known by its hash before it is broadcast. */
export type PreparedTransaction = PreparedTransfer;

/** As TransferStatus (transaction-sender.ts): `confirmed` only with the transaction's effect in its receipt. */
export type TransactionStatus = TransferStatus;

/** A LaunchToken as its contract reports it. */
export interface OnChainToken {
  name: string;
  symbol: string;
  decimals: number;
  totalSupply: bigint;
}

/**
 * The launched tokens on chain (docs/api.md "Tokens on chain"): deployed by a CREATE2 factory at an address known in
 * advance, whole supply to custody (the treasury key); custody sends them to buyers and pulls
 * them back from sellers with their EIP-3009 `ReceiveWithAuthorization`.
 *
 * Writes are outbox-shaped like payouts: `prepare*` signs with custody's next nonce and sends
 * nothing, the caller records `{txHash, rawTx}`, then `broadcast` (as often as needed) and
 * `status`. Addresses come back checksummed.
 */
export interface TokenIssuer {
  /** The account that receives each supply and signs every transaction here. */
  custody(network: Network): string;
  /** The LaunchFactory that deploys the tokens. */
  factory(network: Network): string;
  /** Where the token will be (or is) once custody deploys `spec`; no chain access. */
  predictAddress(network: Network, spec: TokenSpec): string;

  /**
   * Signs the factory call that deploys `spec` at `predictAddress(spec)`. A deploy that reverts
   * because the token is already there (an earlier deploy of the same spec was mined) still
   * leaves the token deployed: ask `isDeployed`.
   */
  prepareDeploy(network: Network, spec: TokenSpec): Promise<PreparedTransaction>;
  /**
   * Signs a transfer of `amount` units of `token` from custody to `to`. Only for a deployed
   * token: a call to an address without code is mined as a success that moves nothing (its
   * status is `no-effect`, never `confirmed`).
   */
  prepareTransfer(network: Network, token: string, to: string, amount: bigint): Promise<PreparedTransaction>;
  /**
   * Signs one transaction that makes every transfer of `transfers` from custody (of deployed
   * tokens, any number of them): all of them, or — when one cannot be made — none (it reverts).
   * Null when this network cannot batch (its factory predates it): send them one at a time.
   */
  prepareBatchTransfer(network: Network, transfers: readonly CustodyTransfer[]): Promise<PreparedTransaction | null>;
  /**
   * Signs custody's `receiveWithAuthorization(authorization)` on `token`: pulls exactly
   * `authorization.value` from `authorization.from` to custody, or reverts (bad signature,
   * window closed, nonce used or cancelled, `to` not custody, balance too low).
   * Throws on a malformed authorization (check it with `recoverReceiveAuthorizer` first).
   */
  prepareReceive(network: Network, token: string, authorization: TokenAuthorization): Promise<PreparedTransaction>;
  /** A prepared transaction will never be broadcast (its record failed): hand its nonce back. */
  release(network: Network): void;
  /** Idempotent: broadcasting a transaction the chain already knows is not an error. */
  broadcast(network: Network, rawTx: string): Promise<void>;
  status(network: Network, txHash: string, rawTx: string): Promise<TransactionStatus>;
  /**
   * The transaction has waited too long: fill any custody nonces below it that nothing will fill
   * (so it can be mined). Never makes a transaction happen twice. Returns how many fillers it sent.
   */
  unblock(network: Network, rawTx: string): Promise<number>;

  /** The block that mined `txHash`, or null when it is not mined. */
  blockOf(network: Network, txHash: string): Promise<bigint | null>;
  /** Whether a contract is at `token`. */
  isDeployed(network: Network, token: string): Promise<boolean>;
  /** name/symbol/decimals/totalSupply of the token; null when nothing is deployed there. */
  tokenInfo(network: Network, token: string): Promise<OnChainToken | null>;
  /** Token units `wallet` holds (0 when the token is not deployed). */
  balanceOf(network: Network, token: string, wallet: string): Promise<bigint>;
  /** Whether `nonce` of `authorizer` is used or cancelled on `token`. */
  authorizationState(network: Network, token: string, authorizer: string, nonce: string): Promise<boolean>;
  /**
   * Who signed `authorization` as a ReceiveWithAuthorization of `token` (EIP-712 domain: the
   * token's name, version "1" unless `token.version` says otherwise — "2" for USDC and EURC — the
   * network's chain id, the token's address): the checksummed
   * signer, or null when the authorization is malformed (bad hex or lengths, values outside
   * uint256, a malleable high-s signature). A signer other than `authorization.from` means a
   * forged or altered authorization. No chain access.
   */
  recoverReceiveAuthorizer(network: Network, token: Eip3009Token, authorization: TokenAuthorization): Promise<string | null>;
}
