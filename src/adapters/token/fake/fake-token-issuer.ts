/**
 * An in-memory chain of LaunchTokens: deploys at the real CREATE2 address, balances, EIP-3009
 * pulls checked like the contract checks them (EIP-712 signature recovery, window, nonce, payee,
 * balance), custody nonces, and transactions that are mined once however often they are
 * broadcast. Outcomes can be scripted (revert, drop, hold pending) and the chain taken offline,
 * like FakePayoutSender, so the workers' fault paths run without a chain.
 */
import { getAddress, isAddress, recoverTypedDataAddress, type Hex } from 'viem';
import { NETWORKS, type Network } from '../../../domain/network.js';
import { LAUNCH_TOKEN_DECIMALS, LAUNCH_TOKEN_EIP712_VERSION, type Eip3009Token, type TokenAuthorization } from '../../../domain/token-authorization.js';
import type { Clock } from '../../../ports/clock.js';
import type { CustodyTransfer, OnChainToken, PreparedTransaction, TokenIssuer, TokenSpec, TransactionStatus } from '../../../ports/token-issuer.js';
import { FakeMempool, type FakeTx as FakeTxOf, type ScriptedOutcome } from '../../kit/fakes/fake-mempool.js';
import { predictLaunchTokenAddress } from '../../kit/evm/contracts/launch-contracts.js';
import { isWellFormedAuthorization, recoverReceiveAuthorizer } from '../../kit/evm/receive-authorization.js';

export interface FakeTokenIssuerOptions {
  /** The chain's time: a pull is valid strictly between validAfter and validBefore. */
  clock: Clock;
  /** Default: anvil's account #0, custody on the devnet. */
  custody?: string;
  /** Default: the devnet's LaunchFactory address, so predicted addresses match the devnet's. */
  factory?: string;
  /**
   * Told every token movement as its `Transfer` log would show it — the mint at deployment
   * included — e.g. a FakeTransferLogReader's `record`, so the transfer indexer can follow them.
   */
  onTransfer?: (t: { network: Network; token: string; from: string; to: string; amount: bigint; txHash?: string }) => void;
  /** False: a factory from before batch deliveries (prepareBatchTransfer answers null). Default true. */
  batchTransfers?: boolean;
}

export type { ScriptedOutcome };

interface FakeToken {
  network: Network;
  address: Hex;
  name: string;
  symbol: string;
  totalSupply: bigint;
  balances: Map<string, bigint>;
  /** `${authorizer}|${nonce}`, lower-cased: used or cancelled authorizations. */
  used: Set<string>;
  /** The EIP-712 domain version: "1" for a LaunchToken (absent), "2" for a stablecoin. */
  version?: string;
}

type Payload =
  | { kind: 'deploy'; tokenId: string; name: string; symbol: string; totalSupply: string }
  | { kind: 'transfer'; token: string; to: string; amount: string }
  | { kind: 'batch'; transfers: { token: string; to: string; amount: string }[] }
  | { kind: 'receive'; token: string; from: string; to: string; value: string; validAfter: string; validBefore: string; nonce: string; signature: string };

/** `txNonce`: custody's account nonce (the payload's `nonce` is the authorization's). */
type FakeTx = FakeTxOf<Payload>;

const DEVNET_CUSTODY = '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266';
const DEVNET_FACTORY = '0x4C61756E6368466163746f727900000000000000';
const ZERO = '0x0000000000000000000000000000000000000000';

const CANCEL_AUTHORIZATION = {
  CancelAuthorization: [
    { name: 'authorizer', type: 'address' },
    { name: 'nonce', type: 'bytes32' },
  ],
} as const;

const lower = (a: string) => a.toLowerCase();

export class FakeTokenIssuer implements TokenIssuer {
  private readonly custodyAddress: Hex;
  private readonly factoryAddress: Hex;
  private readonly tokens = new Map<string, FakeToken>();
  /** Networks where the factory has no code (removeCode). */
  private readonly factoryGone = new Set<Network>();
  /** Custody's transactions: nonces, mempool, scripted outcomes, offline. */
  private readonly chain = new FakeMempool<Payload>((tx, txHash) => this.execute(tx, txHash));

  constructor(private readonly options: FakeTokenIssuerOptions) {
    this.custodyAddress = getAddress(options.custody ?? DEVNET_CUSTODY);
    this.factoryAddress = getAddress(options.factory ?? DEVNET_FACTORY);
  }

  get broadcasts(): number {
    return this.chain.broadcasts;
  }

  get releases(): number {
    return this.chain.releases;
  }

  get unblocks(): number {
    return this.chain.unblocks;
  }

  /** The next broadcast transaction is mined reverted, dropped (never mined), or held pending until `unblock`. */
  scriptNext(outcome: ScriptedOutcome): void {
    this.chain.scriptNext(outcome);
  }

  /** While offline every call that needs the chain throws, as with an unreachable RPC. */
  setOffline(offline: boolean): void {
    this.chain.offline = offline;
  }

  /**
   * Takes the code away from `address` — the factory, or a token (its balances with it): what a
   * chain that is not the books' has there. A call to it is then mined as a success that does nothing.
   */
  removeCode(network: Network, address: string): void {
    if (lower(address) === lower(this.factoryAddress)) this.factoryGone.add(network);
    else this.tokens.delete(`${network}|${lower(address)}`);
  }

  /** What a holder's own `transfer` does (e.g. moving tokens away between a check and a pull). */
  holderTransfer(network: Network, token: string, from: string, to: string, amount: bigint): void {
    const t = this.token(network, token);
    if (!t || !this.move(t, from, to, amount, undefined)) throw new Error('fake chain: transfer reverted');
  }

  /** What `cancelAuthorization` does on chain: the authorizer's EIP-712 CancelAuthorization signature is checked. */
  async cancelAuthorization(network: Network, token: string, authorizer: string, nonce: string, signature: string): Promise<void> {
    const t = this.token(network, token);
    if (!t) throw new Error('fake chain: no token there');
    const key = `${lower(authorizer)}|${lower(nonce)}`;
    if (t.used.has(key)) throw new Error('fake chain: authorization is used or canceled');
    const signer = await recoverTypedDataAddress({
      domain: { name: t.name, version: t.version ?? LAUNCH_TOKEN_EIP712_VERSION, chainId: NETWORKS[network].chainId, verifyingContract: t.address },
      types: CANCEL_AUTHORIZATION,
      primaryType: 'CancelAuthorization',
      message: { authorizer: getAddress(authorizer), nonce: nonce as Hex },
      signature: signature as Hex,
    }).catch(() => null);
    if (signer === null || lower(signer) !== lower(authorizer)) throw new Error('fake chain: invalid signature');
    t.used.add(key);
  }

  /**
   * An EIP-3009 stablecoin at `address` (USDC or EURC of NETWORKS, version "2"), so held
   * authorizations (src/app/held) can be checked and collected on this chain; `mint` funds it.
   */
  addStablecoin(network: Network, address: string, name: string, version = '2'): void {
    const key = `${network}|${lower(address)}`;
    if (this.tokens.has(key)) return;
    this.tokens.set(key, { network, address: getAddress(address), name, symbol: name, totalSupply: 0n, balances: new Map(), used: new Set(), version });
  }

  /** Credits `amount` of a stablecoin added with `addStablecoin` to `wallet`. */
  mint(network: Network, token: string, wallet: string, amount: bigint): void {
    const t = this.token(network, token);
    if (!t) throw new Error('fake chain: no token there');
    t.balances.set(lower(wallet), (t.balances.get(lower(wallet)) ?? 0n) + amount);
    t.totalSupply += amount;
  }

  /** Every token deployed so far. */
  deployed(network?: Network): { network: Network; address: string; name: string; symbol: string; totalSupply: bigint }[] {
    return [...this.tokens.values()]
      .filter((t) => network === undefined || t.network === network)
      .map(({ network: n, address, name, symbol, totalSupply }) => ({ network: n, address, name, symbol, totalSupply }));
  }

  custody(_network: Network): Hex {
    return this.custodyAddress;
  }

  factory(_network: Network): Hex {
    return this.factoryAddress;
  }

  predictAddress(network: Network, spec: TokenSpec): Hex {
    return predictLaunchTokenAddress(this.factory(network), this.custody(network), spec);
  }

  async prepareDeploy(network: Network, spec: TokenSpec): Promise<PreparedTransaction> {
    return this.prepare(network, { kind: 'deploy', tokenId: spec.tokenId, name: spec.name, symbol: spec.symbol, totalSupply: spec.totalSupply.toString() });
  }

  async prepareTransfer(network: Network, token: string, to: string, amount: bigint): Promise<PreparedTransaction> {
    return this.prepare(network, { kind: 'transfer', token: getAddress(token), to: getAddress(to), amount: amount.toString() });
  }

  async prepareBatchTransfer(network: Network, transfers: readonly CustodyTransfer[]): Promise<PreparedTransaction | null> {
    if (this.options.batchTransfers === false) return null;
    return this.prepare(network, {
      kind: 'batch',
      transfers: transfers.map((t) => ({ token: getAddress(t.token.address), to: getAddress(t.to), amount: t.amount.toString() })),
    });
  }

  async prepareReceive(network: Network, token: string, a: TokenAuthorization): Promise<PreparedTransaction> {
    if (!isWellFormedAuthorization(a)) throw new Error('malformed token authorization');
    return this.prepare(network, {
      kind: 'receive',
      token: getAddress(token),
      from: getAddress(a.from),
      to: getAddress(a.to),
      value: a.value.toString(),
      validAfter: a.validAfter.toString(),
      validBefore: a.validBefore.toString(),
      nonce: a.nonce,
      signature: a.signature,
    });
  }

  release(network: Network): void {
    this.chain.release(network);
  }

  broadcast(network: Network, rawTx: string): Promise<void> {
    return this.chain.broadcast(network, rawTx);
  }

  status(network: Network, txHash: string, rawTx: string): Promise<TransactionStatus> {
    return this.chain.status(network, txHash, rawTx);
  }

  unblock(network: Network): Promise<number> {
    return this.chain.unblock(network);
  }

  async blockOf(_network: Network, txHash: string): Promise<bigint | null> {
    return this.chain.blockOf(txHash);
  }

  async isDeployed(network: Network, token: string): Promise<boolean> {
    this.reachable();
    return this.token(network, token) !== undefined;
  }

  async tokenInfo(network: Network, token: string): Promise<OnChainToken | null> {
    this.reachable();
    const t = this.token(network, token);
    return t ? { name: t.name, symbol: t.symbol, decimals: LAUNCH_TOKEN_DECIMALS, totalSupply: t.totalSupply } : null;
  }

  async balanceOf(network: Network, token: string, wallet: string): Promise<bigint> {
    this.reachable();
    return this.token(network, token)?.balances.get(lower(wallet)) ?? 0n;
  }

  async authorizationState(network: Network, token: string, authorizer: string, nonce: string): Promise<boolean> {
    this.reachable();
    return this.token(network, token)?.used.has(`${lower(authorizer)}|${lower(nonce)}`) ?? false;
  }

  recoverReceiveAuthorizer(network: Network, token: Eip3009Token, a: TokenAuthorization): Promise<string | null> {
    return recoverReceiveAuthorizer(NETWORKS[network].chainId, token, a);
  }

  /** Runs `tx` as custody would on chain; false = reverted (nothing changed), `no-effect` = succeeded and did nothing. */
  private async execute(tx: FakeTx, txHash: string): Promise<boolean | 'no-effect'> {
    const custody = this.custodyAddress;
    // The factory's calls, where it has no code: mined as a success that does nothing.
    if ((tx.kind === 'deploy' || tx.kind === 'batch') && this.factoryGone.has(tx.network)) return 'no-effect';
    if (tx.kind === 'deploy') {
      const spec = { tokenId: tx.tokenId, name: tx.name, symbol: tx.symbol, totalSupply: BigInt(tx.totalSupply) };
      const address = this.predictAddress(tx.network, spec);
      if (this.token(tx.network, address)) return false; // "LaunchFactory: already deployed"
      this.tokens.set(`${tx.network}|${lower(address)}`, {
        network: tx.network,
        address,
        name: spec.name,
        symbol: spec.symbol,
        totalSupply: spec.totalSupply,
        balances: new Map([[lower(custody), spec.totalSupply]]),
        used: new Set(),
      });
      this.options.onTransfer?.({ network: tx.network, token: address, from: ZERO, to: custody, amount: spec.totalSupply, txHash });
      return true;
    }
    if (tx.kind === 'batch') return this.batch(tx.network, tx.transfers, txHash);
    const t = this.token(tx.network, tx.token);
    if (!t) return 'no-effect'; // as on chain: a call to an address without code succeeds and moves nothing
    if (tx.kind === 'transfer') return this.move(t, custody, tx.to, BigInt(tx.amount), txHash);
    const a: TokenAuthorization = { ...tx, value: BigInt(tx.value), validAfter: BigInt(tx.validAfter), validBefore: BigInt(tx.validBefore) };
    const now = BigInt(Math.floor(this.options.clock.now().getTime() / 1000));
    const key = `${lower(a.from)}|${lower(a.nonce)}`;
    if (lower(a.to) !== lower(custody)) return false; // caller must be the payee
    if (!(now > a.validAfter) || !(now < a.validBefore) || t.used.has(key)) return false;
    const signer = await recoverReceiveAuthorizer(NETWORKS[tx.network].chainId, t, a);
    if (signer === null || lower(signer) !== lower(a.from)) return false;
    if (!this.move(t, a.from, a.to, a.value, txHash)) return false;
    t.used.add(key);
    return true;
  }

  /** LaunchFactory.deliver: every transfer from custody, or none (a token without code, a balance short). */
  private batch(network: Network, transfers: { token: string; to: string; amount: string }[], txHash: string): boolean {
    const custody = this.custodyAddress;
    const owed = new Map<FakeToken, bigint>();
    for (const x of transfers) {
      const t = this.token(network, x.token);
      if (!t || lower(x.to) === ZERO || BigInt(x.amount) < 0n) return false; // safeTransferFrom reverts on a token without code
      owed.set(t, (owed.get(t) ?? 0n) + BigInt(x.amount));
    }
    for (const [t, amount] of owed) if ((t.balances.get(lower(custody)) ?? 0n) < amount) return false;
    for (const x of transfers) this.move(this.token(network, x.token)!, custody, x.to, BigInt(x.amount), txHash);
    return true;
  }

  private move(t: FakeToken, from: string, to: string, amount: bigint, txHash: string | undefined): boolean {
    const balance = t.balances.get(lower(from)) ?? 0n;
    if (amount < 0n || balance < amount || !isAddress(to, { strict: false }) || lower(to) === ZERO) return false;
    t.balances.set(lower(from), balance - amount);
    t.balances.set(lower(to), (t.balances.get(lower(to)) ?? 0n) + amount);
    this.options.onTransfer?.({ network: t.network, token: t.address, from, to, amount, ...(txHash ? { txHash } : {}) });
    return true;
  }

  private prepare(network: Network, payload: Payload): Promise<PreparedTransaction> {
    return this.chain.prepare(network, payload);
  }

  private reachable(): void {
    this.chain.reachable();
  }

  private token(network: Network, address: string): FakeToken | undefined {
    return this.tokens.get(`${network}|${lower(address)}`);
  }

}
