/**
 * An in-memory chain of LaunchTokens: deploys at the real CREATE2 address, balances, EIP-3009
 * pulls checked like the contract checks them (EIP-712 signature recovery, window, nonce, payee,
 * balance), custody nonces, and transactions that are mined once however often they are
 * broadcast. Outcomes can be scripted (revert, drop, hold pending) and the chain taken offline,
 * like FakePayoutSender, so the workers' fault paths run without a chain.
 */
import { getAddress, isAddress, keccak256, recoverTypedDataAddress, toHex, type Hex } from 'viem';
import { NETWORKS, type Network } from '../../../domain/network.js';
import { LAUNCH_TOKEN_DECIMALS, LAUNCH_TOKEN_EIP712_VERSION, type TokenAuthorization } from '../../../domain/token-authorization.js';
import type { Clock } from '../../../ports/clock.js';
import type { OnChainToken, PreparedTransaction, TokenIssuer, TokenSpec, TransactionStatus } from '../../../ports/token-issuer.js';
import { predictLaunchTokenAddress } from '../../shared/launch-contracts.js';
import { isWellFormedAuthorization, recoverReceiveAuthorizer } from '../../shared/receive-authorization.js';

export interface FakeTokenIssuerOptions {
  /** The chain's time: a pull is valid strictly between validAfter and validBefore. */
  clock: Clock;
  /** Default: anvil's account #0, custody on the devnet. */
  custody?: string;
  /** Default: the devnet's LaunchFactory address, so predicted addresses match the devnet's. */
  factory?: string;
}

export type ScriptedOutcome = 'confirmed' | 'reverted' | 'drop' | 'hold';

interface FakeToken {
  network: Network;
  address: Hex;
  name: string;
  symbol: string;
  totalSupply: bigint;
  balances: Map<string, bigint>;
  /** `${authorizer}|${nonce}`, lower-cased: used or cancelled authorizations. */
  used: Set<string>;
}

type Payload =
  | { kind: 'deploy'; tokenId: string; name: string; symbol: string; totalSupply: string }
  | { kind: 'transfer'; token: string; to: string; amount: string }
  | { kind: 'receive'; token: string; from: string; to: string; value: string; validAfter: string; validBefore: string; nonce: string; signature: string };

/** `txNonce`: custody's account nonce (the payload's `nonce` is the authorization's). */
type FakeTx = Payload & { n: number; network: Network; txNonce: number };

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
  broadcasts = 0;
  releases = 0;
  unblocks = 0;
  private readonly custodyAddress: Hex;
  private readonly factoryAddress: Hex;
  private readonly tokens = new Map<string, FakeToken>();
  private readonly mined = new Map<string, 'confirmed' | 'reverted'>();
  private readonly held = new Map<string, FakeTx>();
  private readonly dropped = new Set<string>();
  private readonly usedNonces = new Map<Network, Set<number>>();
  private readonly nextNonce = new Map<Network, number>();
  private nextOutcome: ScriptedOutcome = 'confirmed';
  private offline = false;
  private counter = 0;

  constructor(private readonly options: FakeTokenIssuerOptions) {
    this.custodyAddress = getAddress(options.custody ?? DEVNET_CUSTODY);
    this.factoryAddress = getAddress(options.factory ?? DEVNET_FACTORY);
  }

  /** The next broadcast transaction is mined reverted, dropped (never mined), or held pending until `unblock`. */
  scriptNext(outcome: ScriptedOutcome): void {
    this.nextOutcome = outcome;
  }

  /** While offline every call that needs the chain throws, as with an unreachable RPC. */
  setOffline(offline: boolean): void {
    this.offline = offline;
  }

  /** What a holder's own `transfer` does (e.g. moving tokens away between a check and a pull). */
  holderTransfer(network: Network, token: string, from: string, to: string, amount: bigint): void {
    const t = this.token(network, token);
    if (!t || !this.move(t, from, to, amount)) throw new Error('fake chain: transfer reverted');
  }

  /** What `cancelAuthorization` does on chain: the authorizer's EIP-712 CancelAuthorization signature is checked. */
  async cancelAuthorization(network: Network, token: string, authorizer: string, nonce: string, signature: string): Promise<void> {
    const t = this.token(network, token);
    if (!t) throw new Error('fake chain: no token there');
    const key = `${lower(authorizer)}|${lower(nonce)}`;
    if (t.used.has(key)) throw new Error('fake chain: authorization is used or canceled');
    const signer = await recoverTypedDataAddress({
      domain: { name: t.name, version: LAUNCH_TOKEN_EIP712_VERSION, chainId: NETWORKS[network].chainId, verifyingContract: t.address },
      types: CANCEL_AUTHORIZATION,
      primaryType: 'CancelAuthorization',
      message: { authorizer: getAddress(authorizer), nonce: nonce as Hex },
      signature: signature as Hex,
    }).catch(() => null);
    if (signer === null || lower(signer) !== lower(authorizer)) throw new Error('fake chain: invalid signature');
    t.used.add(key);
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

  /** The next nonce is the chain's again: one past the highest mined or pending. */
  release(network: Network): void {
    this.releases += 1;
    const taken = [...(this.usedNonces.get(network) ?? []), ...[...this.held.values()].filter((t) => t.network === network).map((t) => t.txNonce)];
    this.nextNonce.set(network, taken.length === 0 ? 0 : Math.max(...taken) + 1);
  }

  async broadcast(network: Network, rawTx: string): Promise<void> {
    this.reachable();
    this.broadcasts += 1;
    const txHash = keccak256(rawTx as Hex);
    const tx = this.decode(rawTx);
    // Known, mined, or its nonce taken: what a node answers "already known" / "nonce too low" to.
    if (this.mined.has(txHash) || this.held.has(txHash) || this.dropped.has(txHash) || this.nonces(network).has(tx.txNonce)) return;
    const outcome = this.nextOutcome;
    this.nextOutcome = 'confirmed';
    if (outcome === 'drop') {
      // What dropping means on chain: another transaction took its nonce.
      this.dropped.add(txHash);
      this.nonces(network).add(tx.txNonce);
    } else if (outcome === 'hold') this.held.set(txHash, tx);
    else await this.mine(txHash, tx, outcome === 'reverted');
  }

  /** The fake mines one transaction per block, numbered in mining order. */
  private readonly blocks = new Map<string, bigint>();

  async blockOf(_network: Network, txHash: string): Promise<bigint | null> {
    return this.blocks.get(lower(txHash)) ?? null;
  }

  async status(network: Network, txHash: string, rawTx: string): Promise<TransactionStatus> {
    this.reachable();
    const mined = this.mined.get(lower(txHash));
    if (mined) return mined;
    if (this.held.has(lower(txHash))) return 'pending';
    if (this.dropped.has(lower(txHash))) return 'dropped';
    return this.nonces(network).has(this.decode(rawTx).txNonce) ? 'dropped' : 'pending';
  }

  /** Held transactions are what a nonce gap would hold back: unblocking mines them. */
  async unblock(network: Network): Promise<number> {
    this.reachable();
    this.unblocks += 1;
    const held = [...this.held.entries()].filter(([, tx]) => tx.network === network);
    for (const [txHash, tx] of held) {
      this.held.delete(txHash);
      await this.mine(txHash, tx, false);
    }
    return held.length;
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

  recoverReceiveAuthorizer(network: Network, token: { address: string; name: string }, a: TokenAuthorization): Promise<string | null> {
    return recoverReceiveAuthorizer(NETWORKS[network].chainId, token, a);
  }

  private async prepare(network: Network, payload: Payload): Promise<PreparedTransaction> {
    this.reachable();
    this.counter += 1;
    const nonce = this.nextNonce.get(network) ?? 0;
    this.nextNonce.set(network, nonce + 1);
    const tx: FakeTx = { ...payload, n: this.counter, network, txNonce: nonce };
    const rawTx = toHex(JSON.stringify(tx));
    return { rawTx, txHash: keccak256(rawTx) };
  }

  private decode(rawTx: string): FakeTx {
    return JSON.parse(Buffer.from(rawTx.slice(2), 'hex').toString()) as FakeTx;
  }

  private async mine(txHash: string, tx: FakeTx, revert: boolean): Promise<void> {
    this.nonces(tx.network).add(tx.txNonce);
    this.mined.set(txHash, !revert && (await this.execute(tx)) ? 'confirmed' : 'reverted');
    this.blocks.set(txHash, BigInt(this.blocks.size + 1));
  }

  /** Runs `tx` as custody would on chain; false = reverted (nothing changed). */
  private async execute(tx: FakeTx): Promise<boolean> {
    const custody = this.custodyAddress;
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
      return true;
    }
    const t = this.token(tx.network, tx.token);
    if (!t) return true; // as on chain: a call to an address without code succeeds and moves nothing
    if (tx.kind === 'transfer') return this.move(t, custody, tx.to, BigInt(tx.amount));
    const a: TokenAuthorization = { ...tx, value: BigInt(tx.value), validAfter: BigInt(tx.validAfter), validBefore: BigInt(tx.validBefore) };
    const now = BigInt(Math.floor(this.options.clock.now().getTime() / 1000));
    const key = `${lower(a.from)}|${lower(a.nonce)}`;
    if (lower(a.to) !== lower(custody)) return false; // caller must be the payee
    if (!(now > a.validAfter) || !(now < a.validBefore) || t.used.has(key)) return false;
    const signer = await recoverReceiveAuthorizer(NETWORKS[tx.network].chainId, t, a);
    if (signer === null || lower(signer) !== lower(a.from)) return false;
    if (!this.move(t, a.from, a.to, a.value)) return false;
    t.used.add(key);
    return true;
  }

  private move(t: FakeToken, from: string, to: string, amount: bigint): boolean {
    const balance = t.balances.get(lower(from)) ?? 0n;
    if (amount < 0n || balance < amount || !isAddress(to, { strict: false }) || lower(to) === ZERO) return false;
    t.balances.set(lower(from), balance - amount);
    t.balances.set(lower(to), (t.balances.get(lower(to)) ?? 0n) + amount);
    return true;
  }

  private token(network: Network, address: string): FakeToken | undefined {
    return this.tokens.get(`${network}|${lower(address)}`);
  }

  private nonces(network: Network): Set<number> {
    let s = this.usedNonces.get(network);
    if (!s) this.usedNonces.set(network, (s = new Set()));
    return s;
  }

  private reachable(): void {
    if (this.offline) throw new Error('fake chain: RPC unreachable');
  }
}
