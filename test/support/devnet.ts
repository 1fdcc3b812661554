/**
 * What tests do to a devnet beyond what the service needs of it: read balances, take and revert
 * snapshots, mint, move a price feed, cancel an authorization as a wallet would.
 * `TestDevnet.start` starts a devnet for a test file; `devnetTools(service.devnet!)` works on the
 * one a service started.
 */
import { afterAll, afterEach, beforeAll, beforeEach } from 'vitest';
import { createTestClient, createWalletClient, http, parseSignature, createPublicClient, type Hex, type LocalAccount } from 'viem';
import { AnvilDevnet, type DevnetChain, type DevnetOptions } from '../../src/adapters/chain/anvil/anvil-devnet.js';
import { USDC_ABI, type DevnetFeedAsset } from '../../src/adapters/chain/anvil/devnet-constants.js';
import { mintStablecoin, setFeedRound } from '../../src/adapters/chain/anvil/devnet-provisioning.js';
import { viemChain } from '../../src/adapters/kit/evm/viem-chain.js';
import { freePorts } from './free-ports.js';
import { assetAddress, NETWORKS, PRODUCTION, TESTNET, type Network, type PaymentAsset } from '../../src/domain/network.js';

export class DevnetTools {
  constructor(readonly chains: Record<Network, DevnetChain>) {}

  publicClient(network: Network) {
    return createPublicClient({ transport: http(this.chains[network].rpcUrl) });
  }

  async snapshot(): Promise<Record<Network, Hex>> {
    const ids = await Promise.all(([PRODUCTION, TESTNET] as const).map((n) => this.testClient(n).snapshot()));
    return { [PRODUCTION]: ids[0]!, [TESTNET]: ids[1]! };
  }

  async revert(ids: Record<Network, Hex>): Promise<void> {
    await Promise.all(([PRODUCTION, TESTNET] as const).map((n) => this.testClient(n).revert({ id: ids[n] })));
  }

  async usdcBalance(network: Network, address: Hex): Promise<bigint> {
    return this.assetBalance(network, 'USDC', address);
  }

  /** The balance of a payment asset (USDC or EURC), in its smallest units. */
  async assetBalance(network: Network, asset: PaymentAsset, address: Hex): Promise<bigint> {
    return (await this.publicClient(network).readContract({
      address: assetAddress(network, asset),
      abi: USDC_ABI,
      functionName: 'balanceOf',
      args: [address],
    })) as bigint;
  }

  /** Mints devnet USDC or EURC (account #0 is the minter of both). */
  mint(network: Network, to: Hex, amount: bigint, asset: PaymentAsset = 'USDC'): Promise<void> {
    return mintStablecoin(network, this.chains[network].rpcUrl, to, amount, asset);
  }

  /** A new round of a devnet feed: live (updatedAt follows the block time) or pinned to `updatedAt`. */
  setFeedRound(network: Network, asset: DevnetFeedAsset, answer: bigint, updatedAt?: bigint): Promise<void> {
    return setFeedRound(network, this.chains[network].rpcUrl, asset, answer, updatedAt);
  }

  /** The wallet cancels an EIP-3009 authorization of its own (signed, submitted by the wallet). */
  async cancelAuthorization(network: Network, wallet: LocalAccount, nonce: Hex, asset: PaymentAsset = 'USDC'): Promise<void> {
    const url = this.chains[network].rpcUrl;
    const info = NETWORKS[network].assets[asset];
    const signature = await wallet.signTypedData({
      domain: { ...info.eip712, chainId: NETWORKS[network].chainId, verifyingContract: info.address },
      types: { CancelAuthorization: [{ name: 'authorizer', type: 'address' }, { name: 'nonce', type: 'bytes32' }] },
      primaryType: 'CancelAuthorization',
      message: { authorizer: wallet.address, nonce },
    });
    const { r, s, v } = parseSignature(signature);
    const client = createWalletClient({ account: wallet, transport: http(url) });
    const hash = await client.writeContract({
      chain: viemChain(network, url),
      address: info.address,
      abi: USDC_ABI,
      functionName: 'cancelAuthorization',
      args: [wallet.address, nonce, Number(v ?? 27n), r, s],
    });
    await this.publicClient(network).waitForTransactionReceipt({ hash });
  }

  private testClient(network: Network) {
    return createTestClient({ mode: 'anvil', transport: http(this.chains[network].rpcUrl) });
  }
}

/** The tools on a devnet someone else started (a service's). */
export const devnetTools = (devnet: AnvilDevnet): DevnetTools => new DevnetTools(devnet.chains);

/** A devnet a test file starts and stops itself, with the tools. */
export class TestDevnet extends DevnetTools {
  static async start(options: DevnetOptions): Promise<TestDevnet> {
    return new TestDevnet(await AnvilDevnet.start(options));
  }

  private constructor(readonly devnet: AnvilDevnet) {
    super(devnet.chains);
  }

  get pids(): number[] {
    return this.devnet.pids;
  }

  stop(): Promise<void> {
    return this.devnet.stop();
  }
}

/**
 * One devnet for the whole test file, each test on a clean chain: started before the first test
 * (then `setup`, e.g. a float to mint, kept in the snapshot), snapshotted before each test,
 * reverted after it, stopped after the last. The returned object stands for the devnet once
 * started (the file's tests use it as they would the TestDevnet itself).
 */
export function devnetPerFile(setup?: (devnet: TestDevnet) => Promise<void>, options: Omit<DevnetOptions, 'port'> = {}): TestDevnet {
  let devnet: TestDevnet | undefined;
  let snapshot: Record<Network, Hex>;
  beforeAll(async () => {
    devnet = await TestDevnet.start({ ...options, port: await freePorts() });
    await setup?.(devnet);
  }, 30_000);
  afterAll(async () => {
    await devnet?.stop();
  });
  beforeEach(async () => {
    snapshot = await devnet!.snapshot();
  });
  afterEach(async () => {
    await devnet!.revert(snapshot);
  });
  return new Proxy({} as TestDevnet, {
    get(_target, key) {
      if (!devnet) throw new Error('the devnet is used before it started (devnetPerFile starts it in beforeAll)');
      const value = Reflect.get(devnet, key, devnet) as unknown;
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(devnet) : value;
    },
  });
}

/**
 * Gas for an outsider's own calls to a Uniswap v2 pair or router in tests. An estimate is not
 * enough: the pair writes its price accumulators only when the block's second differs from its
 * last update's, so a swap estimated in one second and mined in the next runs out of gas and
 * reverts (seen in CI under load). The service signs its own swaps with fixed limits
 * (viem-dex-router.ts); `liquidity` covers the router creating the pair.
 */
export const OUTSIDER_GAS = { swap: 500_000n, liquidity: 6_000_000n } as const;
