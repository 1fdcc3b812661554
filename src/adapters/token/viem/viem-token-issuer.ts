/**
 * Launched tokens on a real chain (or the devnet): custody deploys each LaunchToken through the
 * LaunchFactory, sends tokens with `transfer` and pulls them with `receiveWithAuthorization`,
 * every transaction signed with a nonce from custody's one queue (SignedTransactions) so its
 * hash is recorded before it is broadcast.
 */
import { BaseError, ContractFunctionZeroDataError, encodeFunctionData, getAddress, type Hex } from 'viem';
import { NETWORKS, type Network } from '../../../domain/network.js';
import type { TokenAuthorization } from '../../../domain/token-authorization.js';
import type { OnChainToken, PreparedTransaction, TokenIssuer, TokenSpec } from '../../../ports/token-issuer.js';
import { LAUNCH_FACTORY_ABI, LAUNCH_TOKEN_ABI, predictLaunchTokenAddress } from '../../kit/evm/contracts/launch-contracts.js';
import { isWellFormedAuthorization, recoverReceiveAuthorizer } from '../../kit/evm/receive-authorization.js';
import { SignedTransactionSender, type NonceQueue } from '../../kit/evm/signed-transactions.js';

// Fixed gas limits: a transaction is signed before it is sent, and estimating would fail exactly
// for the calls whose revert we want mined and seen. Only the gas used is paid.
// A deploy uses about 1.5M with the longest names (32 four-byte characters); a pull about 80k.
const DEPLOY_GAS = 2_500_000n;
const TRANSFER_GAS = 100_000n;
const RECEIVE_GAS = 150_000n;

export interface ViemTokenIssuerOptions {
  /** Custody: receives every supply, sends deliveries, submits pulls. The treasury key. */
  custodyKey: Hex;
  rpcUrls: Partial<Record<Network, string>>;
  /** The LaunchFactory per network (devnet: LAUNCH_FACTORY_ADDRESS; else LAUNCH_FACTORY_<chainId>). */
  factories: Partial<Record<Network, string>>;
  /** Custody's nonce queue, shared with every other signer of that key in the process. */
  nonces?: NonceQueue;
}

export class ViemTokenIssuer extends SignedTransactionSender implements TokenIssuer {
  constructor(private readonly options: ViemTokenIssuerOptions) {
    super(options.custodyKey, options.rpcUrls, options.nonces);
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

  recoverReceiveAuthorizer(network: Network, token: { address: string; name: string }, a: TokenAuthorization): Promise<string | null> {
    return recoverReceiveAuthorizer(NETWORKS[network].chainId, token, a);
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
