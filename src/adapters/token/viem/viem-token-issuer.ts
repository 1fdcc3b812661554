/**
 * Launched tokens on a real chain (or the devnet): custody deploys each LaunchToken through the
 * LaunchFactory, sends tokens with `transfer` and pulls them with `receiveWithAuthorization`,
 * every transaction signed with a nonce from custody's one queue (SignedTransactions) so its
 * hash is recorded before it is broadcast.
 */
import { BaseError, ContractFunctionZeroDataError, decodeFunctionData, encodeFunctionData, getAddress, parseSignature, toFunctionSelector, type Hex, type TransactionReceipt } from 'viem';
import { NETWORKS, type Network } from '../../../domain/network.js';
import { LAUNCH_TOKEN_EIP712_VERSION, type Eip3009Token, type TokenAuthorization } from '../../../domain/token-authorization.js';
import type { CustodyTransfer, OnChainToken, PreparedTransaction, TokenIssuer, TokenSpec } from '../../../ports/token-issuer.js';
import { LAUNCH_FACTORY_ABI, LAUNCH_TOKEN_ABI, predictLaunchTokenAddress } from '../../kit/evm/contracts/launch-contracts.js';
import { isWellFormedAuthorization, recoverReceiveAuthorizer } from '../../kit/evm/receive-authorization.js';
import { describeMissing, missingTransfers, type ExpectedTransfer } from '../../kit/evm/receipt-effects.js';
import { SignedTransactionSender, type EffectCheck, type NonceQueue, type SignerOptions } from '../../kit/evm/signed-transactions.js';

// Fixed gas limits: a transaction is signed before it is sent, and estimating would fail exactly
// for the calls whose revert we want mined and seen. Only the gas used is paid.
// A deploy uses about 1.5M with the longest names (32 four-byte characters); a pull about 80k.
const DEPLOY_GAS = 2_500_000n;
const TRANSFER_GAS = 100_000n;
const RECEIVE_GAS = 150_000n;
// A batch (LaunchFactory.deliver): the call, each transferFrom (a new holder's balance written,
// custody's lowered, the calldata), each permit (a signature recovered, a nonce and an allowance written).
const BATCH_BASE_GAS = 60_000n;
const BATCH_TRANSFER_GAS = 60_000n;
const BATCH_PERMIT_GAS = 90_000n;

const MAX_UINT256 = 2n ** 256n - 1n;
const ZERO_ADDRESS = '0x0000000000000000000000000000000000000000';
/** LaunchFactory.deliver's selector: a factory whose code lacks it predates batch deliveries. */
const DELIVER_SELECTOR = toFunctionSelector('deliver((address,uint8,bytes32,bytes32)[],(address,address,uint256)[])').slice(2);
const PERMIT_TYPES = {
  Permit: [
    { name: 'owner', type: 'address' },
    { name: 'spender', type: 'address' },
    { name: 'value', type: 'uint256' },
    { name: 'nonce', type: 'uint256' },
    { name: 'deadline', type: 'uint256' },
  ],
} as const;

export interface ViemTokenIssuerOptions extends SignerOptions {
  /** Custody: receives every supply, sends deliveries, submits pulls. The treasury key. */
  custodyKey: Hex;
  rpcUrls: Partial<Record<Network, string>>;
  /** The LaunchFactory per network (devnet: LAUNCH_FACTORY_ADDRESS; else LAUNCH_FACTORY_<chainId>). */
  factories: Partial<Record<Network, string>>;
  /** Custody's nonce queue, shared with every other signer of that key in the process. */
  nonces?: NonceQueue;
}

export class ViemTokenIssuer extends SignedTransactionSender implements TokenIssuer {
  /** Per network: whether its factory has `deliver` (asked once). */
  private readonly batching = new Map<Network, Promise<boolean>>();
  /**
   * `network|token` whose unlimited allowance to the factory is seen on chain. It stays: custody
   * only ever approves the factory for the largest amount (here and for graduation pools), and
   * an unlimited allowance is never spent down.
   */
  private readonly approved = new Set<string>();

  constructor(private readonly options: ViemTokenIssuerOptions) {
    super(options.custodyKey, options.rpcUrls, options);
  }

  custody(_network: Network): Hex {
    return this.txs.address;
  }

  factory(network: Network): Hex {
    const factory = this.options.factories[network];
    if (!factory) throw new Error(`no LaunchFactory configured for ${network}`);
    return getAddress(factory);
  }

  predictAddress(network: Network, spec: TokenSpec): Hex {
    return predictLaunchTokenAddress(this.factory(network), this.custody(network), spec);
  }

  async prepareDeploy(network: Network, spec: TokenSpec): Promise<PreparedTransaction> {
    const data = encodeFunctionData({
      abi: LAUNCH_FACTORY_ABI,
      functionName: 'deploy',
      args: [spec.tokenId, spec.name, spec.symbol, spec.totalSupply],
    });
    return this.sign(network, this.factory(network), data, DEPLOY_GAS);
  }

  async prepareTransfer(network: Network, token: string, to: string, amount: bigint): Promise<PreparedTransaction> {
    const data = encodeFunctionData({ abi: LAUNCH_TOKEN_ABI, functionName: 'transfer', args: [getAddress(to), amount] });
    return this.sign(network, getAddress(token), data, TRANSFER_GAS);
  }

  /**
   * One LaunchFactory.deliver call: every transfer by `transferFrom` custody, with custody's
   * EIP-2612 permit (an unlimited allowance to the factory) for each token the factory has no
   * allowance on yet — signed here, so no approval is ever a transaction of its own.
   */
  async prepareBatchTransfer(network: Network, transfers: readonly CustodyTransfer[]): Promise<PreparedTransaction | null> {
    if (!(await this.canBatch(network))) return null;
    const tokens = new Map(transfers.map((t) => [getAddress(t.token.address), t.token.name]));
    const approvals: { token: Hex; v: number; r: Hex; s: Hex }[] = [];
    for (const [token, name] of tokens) {
      if (!(await this.factoryApproved(network, token))) approvals.push({ token, ...(await this.permit(network, token, name)) });
    }
    const data = encodeFunctionData({
      abi: LAUNCH_FACTORY_ABI,
      functionName: 'deliver',
      args: [approvals, transfers.map((t) => ({ token: getAddress(t.token.address), to: getAddress(t.to), amount: t.amount }))],
    });
    const gas = BATCH_BASE_GAS + BATCH_TRANSFER_GAS * BigInt(transfers.length) + BATCH_PERMIT_GAS * BigInt(approvals.length);
    return this.sign(network, this.factory(network), data, gas);
  }

  private canBatch(network: Network): Promise<boolean> {
    let known = this.batching.get(network);
    if (!known) {
      known = this.txs
        .client(network)
        .publicClient.getCode({ address: this.factory(network) })
        .then((code) => (code ?? '').toLowerCase().includes(DELIVER_SELECTOR));
      // A failed look is asked again next time, not remembered as "cannot".
      known.catch(() => this.batching.delete(network));
      this.batching.set(network, known);
    }
    return known;
  }

  private async factoryApproved(network: Network, token: Hex): Promise<boolean> {
    const key = `${network}|${token}`;
    if (this.approved.has(key)) return true;
    const allowance = (await this.read(network, token, 'allowance', [this.custody(network), this.factory(network)])) as bigint | null;
    // Past half the range it is the unlimited allowance (never spent down), not an amount.
    const unlimited = allowance !== null && allowance > MAX_UINT256 / 2n;
    if (unlimited) this.approved.add(key);
    return unlimited;
  }

  /** Custody's permit for the factory to move `token` without limit, for ever, at custody's current permit nonce. */
  private async permit(network: Network, token: Hex, name: string): Promise<{ v: number; r: Hex; s: Hex }> {
    const nonce = ((await this.read(network, token, 'nonces', [this.custody(network)])) as bigint | null) ?? 0n;
    const signature = await this.txs.account.signTypedData({
      domain: { name, version: LAUNCH_TOKEN_EIP712_VERSION, chainId: NETWORKS[network].chainId, verifyingContract: token },
      types: PERMIT_TYPES,
      primaryType: 'Permit',
      message: { owner: this.custody(network), spender: this.factory(network), value: MAX_UINT256, nonce, deadline: MAX_UINT256 },
    });
    const { r, s, v, yParity } = parseSignature(signature);
    return { r, s, v: Number(v ?? BigInt(27 + yParity)) };
  }

  async prepareReceive(network: Network, token: string, a: TokenAuthorization): Promise<PreparedTransaction> {
    if (!isWellFormedAuthorization(a)) throw new Error('malformed token authorization');
    const data = encodeFunctionData({
      abi: LAUNCH_TOKEN_ABI,
      functionName: 'receiveWithAuthorization',
      args: [getAddress(a.from), getAddress(a.to), a.value, a.validAfter, a.validBefore, a.nonce as Hex, a.signature as Hex],
    });
    return this.sign(network, getAddress(token), data, RECEIVE_GAS);
  }

  async blockOf(network: Network, txHash: string): Promise<bigint | null> {
    return (await this.txs.receipt(network, txHash))?.blockNumber ?? null;
  }

  async isDeployed(network: Network, token: string): Promise<boolean> {
    const code = await this.txs.client(network).publicClient.getCode({ address: getAddress(token) });
    return code !== undefined && code !== '0x';
  }

  async tokenInfo(network: Network, token: string): Promise<OnChainToken | null> {
    const [name, symbol, decimals, totalSupply] = await Promise.all(
      (['name', 'symbol', 'decimals', 'totalSupply'] as const).map((fn) => this.read(network, token, fn, [])),
    );
    if (name === null || symbol === null || decimals === null || totalSupply === null) return null;
    return { name: name as string, symbol: symbol as string, decimals: Number(decimals), totalSupply: totalSupply as bigint };
  }

  async balanceOf(network: Network, token: string, wallet: string): Promise<bigint> {
    return ((await this.read(network, token, 'balanceOf', [getAddress(wallet)])) as bigint | null) ?? 0n;
  }

  async authorizationState(network: Network, token: string, authorizer: string, nonce: string): Promise<boolean> {
    return ((await this.read(network, token, 'authorizationState', [getAddress(authorizer), nonce as Hex])) as boolean | null) ?? false;
  }

  recoverReceiveAuthorizer(network: Network, token: Eip3009Token, a: TokenAuthorization): Promise<string | null> {
    return recoverReceiveAuthorizer(NETWORKS[network].chainId, token, a);
  }

  /**
   * What each of custody's transactions must show in its receipt to be confirmed (docs/decisions/0066):
   * a deploy, the new token's mint of the whole supply to custody (a log only the token's code, at
   * its predicted address, can emit); a transfer, a batch or a pull, the Transfer log of each
   * token, amount and recipient. Anything else custody signs (a filler to itself) expects nothing.
   */
  protected override missingEffect(network: Network, tx: Parameters<EffectCheck>[1], receipt: TransactionReceipt): string | null {
    if (!tx.to || !tx.data || tx.data === '0x') return null;
    const custody = this.custody(network);
    const expected: ExpectedTransfer[] = [];
    if (getAddress(tx.to) === this.factory(network)) {
      const call = decodeFunctionData({ abi: LAUNCH_FACTORY_ABI, data: tx.data });
      if (call.functionName === 'deploy') {
        const [tokenId, name, symbol, totalSupply] = call.args as readonly [string, string, string, bigint];
        expected.push({ token: this.predictAddress(network, { tokenId, name, symbol, totalSupply }), from: ZERO_ADDRESS, to: custody, amount: totalSupply });
      } else if (call.functionName === 'deliver') {
        const [, deliveries] = call.args as readonly [unknown, readonly { token: Hex; to: Hex; amount: bigint }[]];
        for (const d of deliveries) expected.push({ token: d.token, from: custody, to: d.to, amount: d.amount });
      }
    } else {
      const call = decodeFunctionData({ abi: LAUNCH_TOKEN_ABI, data: tx.data });
      if (call.functionName === 'transfer') {
        const [to, amount] = call.args as readonly [Hex, bigint];
        expected.push({ token: tx.to, from: custody, to, amount });
      } else if (call.functionName === 'receiveWithAuthorization') {
        const [from, to, value] = call.args as readonly [Hex, Hex, bigint];
        expected.push({ token: tx.to, from, to, amount: value });
      }
    }
    return describeMissing(missingTransfers(receipt, expected));
  }

  /** A view of the token; null when no contract answers at that address. */
  private async read(network: Network, token: string, functionName: string, args: unknown[]): Promise<unknown> {
    try {
      return await this.txs.client(network).publicClient.readContract({ address: getAddress(token), abi: LAUNCH_TOKEN_ABI, functionName, args });
    } catch (e) {
      if (e instanceof BaseError && e.walk((c) => c instanceof ContractFunctionZeroDataError)) return null;
      throw e;
    }
  }

  private async sign(network: Network, to: Hex, data: Hex, gas: bigint): Promise<PreparedTransaction> {
    const { rawTx, txHash } = await this.txs.sign(network, { to, data, gas });
    return { rawTx, txHash };
  }
}
