/**
 * What the devnet gives each chain, once per state (a restart keeps it): the mock price feeds,
 * Uniswap v2, EURC, the LaunchFactory, USDC and Multicall3, the x402 upto and batch-settlement
 * contracts with Permit2 (decision 0073), and the demo wallets' and the
 * treasury's balances (docs/operations.md, "On this machine: the embedded devnet"). Each piece is
 * checked on its own, so a state saved by an older version gets what it lacks. Everything goes
 * through the chain's public (journaling) RPC like any transaction, so a replay finds it.
 */
import { createPublicClient, createTestClient, createWalletClient, http, parseEther, type Hex } from 'viem';
import { assetAddress, NETWORKS, type Network, type PaymentAsset } from '../../../domain/network.js';
import { CONTRACTS } from '../../kit/evm/contracts/artifacts.js';
import { UNISWAP_V2_FACTORY, UNISWAP_V2_ROUTER, WETH9 } from '../../kit/evm/contracts/uniswap-v2.js';
import { viemChain } from '../../kit/evm/viem-chain.js';
import {
  DEMO_BALANCE,
  DEVNET_FEED_ANSWERS,
  DEVNET_PRICE_FEEDS,
  DEVNET_UNISWAP_V2,
  DEVNET_X402_CONTRACTS,
  devnetAccount,
  FUNDED,
  LAUNCH_FACTORY_ADDRESS,
  MOCK_AGGREGATOR_ABI,
  MULTICALL3_ADDRESS,
  TREASURY_FLOAT,
  UNISWAP_DEPLOYER,
  USDC_ABI,
  type DevnetFeedAsset,
} from './devnet-constants.js';

const publicClient = (rpcUrl: string) => createPublicClient({ transport: http(rpcUrl) });
const testClient = (rpcUrl: string) => createTestClient({ mode: 'anvil', transport: http(rpcUrl) });

/** Installs the contracts and funds the demo wallets on the chain of `network` at `rpcUrl`. */
export async function provisionChain(network: Network, rpcUrl: string): Promise<void> {
  await provisionPriceFeeds(network, rpcUrl);
  await provisionUniswap(network, rpcUrl);
  await provisionEurc(network, rpcUrl);
  const usdc = NETWORKS[network].usdc;
  // Checked on its own and replaced when it differs, so a devnet state from before the factory
  // existed (or from before its pool seeding) gets this version: it keeps no state.
  await placeCode(rpcUrl, LAUNCH_FACTORY_ADDRESS, CONTRACTS.LaunchFactory.deployedBytecode);
  // The same for the x402 contracts: their storage (channels, nonces) stays where it is.
  for (const { name, address } of DEVNET_X402_CONTRACTS) await placeCode(rpcUrl, address, CONTRACTS[name].deployedBytecode);
  const code = await publicClient(rpcUrl).getCode({ address: usdc });
  if (code && code !== '0x') {
    // A state from before EIP-2612 permit gets it: the new slot follows the others, balances stay.
    await placeCode(rpcUrl, usdc, CONTRACTS.DevUSDC.deployedBytecode);
    return;
  }
  await testClient(rpcUrl).setCode({ address: usdc, bytecode: CONTRACTS.DevUSDC.deployedBytecode });
  await testClient(rpcUrl).setCode({ address: MULTICALL3_ADDRESS, bytecode: CONTRACTS.Multicall.deployedBytecode });
  for (const index of FUNDED[network]) await mintStablecoin(network, rpcUrl, devnetAccount(index).address, DEMO_BALANCE);
  await mintStablecoin(network, rpcUrl, devnetAccount(0).address, TREASURY_FLOAT);
}

/** Places `bytecode` at `address` unless it is already there. */
async function placeCode(rpcUrl: string, address: Hex, bytecode: Hex): Promise<void> {
  const code = await publicClient(rpcUrl).getCode({ address });
  if (code?.toLowerCase() !== bytecode.toLowerCase()) await testClient(rpcUrl).setCode({ address, bytecode });
}

/** Mints devnet USDC or EURC (account #0 is the minter of both). */
export async function mintStablecoin(network: Network, rpcUrl: string, to: Hex, amount: bigint, asset: PaymentAsset = 'USDC'): Promise<void> {
  const wallet = createWalletClient({ account: devnetAccount(0), transport: http(rpcUrl) });
  const chain = viemChain(network, rpcUrl);
  const hash = await wallet.writeContract({ chain, address: assetAddress(network, asset), abi: USDC_ABI, functionName: 'mint', args: [to, amount] });
  await publicClient(rpcUrl).waitForTransactionReceipt({ hash });
}

/** A new round of a devnet feed: live (updatedAt follows the block time) or pinned to `updatedAt`. */
export async function setFeedRound(network: Network, rpcUrl: string, asset: DevnetFeedAsset, answer: bigint, updatedAt?: bigint): Promise<void> {
  const wallet = createWalletClient({ account: devnetAccount(0), transport: http(rpcUrl) });
  const chain = viemChain(network, rpcUrl);
  const address = DEVNET_PRICE_FEEDS[asset];
  const hash =
    updatedAt === undefined
      ? await wallet.writeContract({ chain, address, abi: MOCK_AGGREGATOR_ABI, functionName: 'setAnswer', args: [answer] })
      : await wallet.writeContract({ chain, address, abi: MOCK_AGGREGATOR_ABI, functionName: 'setRound', args: [answer, updatedAt] });
  await publicClient(rpcUrl).waitForTransactionReceipt({ hash });
}

/**
 * WETH9, UniswapV2Factory and UniswapV2Router02 from the npm artifacts, each deployed once per
 * state by the fixed deployer at its fixed nonce (checked on their own: older states lack them).
 */
async function provisionUniswap(network: Network, rpcUrl: string): Promise<void> {
  const client = publicClient(rpcUrl);
  const chain = viemChain(network, rpcUrl);
  const wallet = createWalletClient({ account: UNISWAP_DEPLOYER, chain, transport: http(rpcUrl) });
  const steps = [
    { nonce: 0, address: DEVNET_UNISWAP_V2.weth, deploy: () => wallet.deployContract({ abi: WETH9.abi, bytecode: WETH9.bytecode, nonce: 0 }) },
    {
      nonce: 1,
      address: DEVNET_UNISWAP_V2.factory,
      deploy: () => wallet.deployContract({ abi: UNISWAP_V2_FACTORY.abi, bytecode: UNISWAP_V2_FACTORY.bytecode, args: [UNISWAP_DEPLOYER.address], nonce: 1 }),
    },
    {
      nonce: 2,
      address: DEVNET_UNISWAP_V2.router,
      deploy: () =>
        wallet.deployContract({ abi: UNISWAP_V2_ROUTER.abi, bytecode: UNISWAP_V2_ROUTER.bytecode, args: [DEVNET_UNISWAP_V2.factory, DEVNET_UNISWAP_V2.weth], nonce: 2 }),
    },
  ];
  for (const step of steps) {
    const code = await client.getCode({ address: step.address });
    if (code && code !== '0x') continue;
    const used = await client.getTransactionCount({ address: UNISWAP_DEPLOYER.address });
    if (used !== step.nonce) {
      throw new Error(`devnet ${network}: the Uniswap v2 deployer has used nonce ${step.nonce} for something else: to start over, stop the service and delete the whole DATA_DIR, its books with its chains (docs/operations.md, "Starting over")`);
    }
    await testClient(rpcUrl).setBalance({ address: UNISWAP_DEPLOYER.address, value: parseEther('10') });
    const hash = await step.deploy();
    const receipt = await client.waitForTransactionReceipt({ hash });
    if (receipt.status !== 'success' || receipt.contractAddress?.toLowerCase() !== step.address.toLowerCase()) {
      throw new Error(`devnet ${network}: deploying Uniswap v2 at ${step.address} failed`);
    }
  }
}

/**
 * EURC (docs/decisions/0014-second-payment-asset.md) at its canonical address with its real
 * EIP-712 name and version, the demo wallets funded as with USDC (checked on its own: older
 * states lack it).
 */
async function provisionEurc(network: Network, rpcUrl: string): Promise<void> {
  const eurc = assetAddress(network, 'EURC');
  const code = await publicClient(rpcUrl).getCode({ address: eurc });
  if (code && code !== '0x') return placeCode(rpcUrl, eurc, CONTRACTS.DevEURC.deployedBytecode);
  await testClient(rpcUrl).setCode({ address: eurc, bytecode: CONTRACTS.DevEURC.deployedBytecode });
  for (const index of FUNDED[network]) await mintStablecoin(network, rpcUrl, devnetAccount(index).address, DEMO_BALANCE, 'EURC');
}

/** The mock feeds (checked on their own: older states lack them). */
async function provisionPriceFeeds(network: Network, rpcUrl: string): Promise<void> {
  for (const asset of Object.keys(DEVNET_PRICE_FEEDS) as DevnetFeedAsset[]) {
    const code = await publicClient(rpcUrl).getCode({ address: DEVNET_PRICE_FEEDS[asset] });
    if (code && code !== '0x') continue;
    await testClient(rpcUrl).setCode({ address: DEVNET_PRICE_FEEDS[asset], bytecode: CONTRACTS.MockAggregator.deployedBytecode });
    await setFeedRound(network, rpcUrl, asset, DEVNET_FEED_ANSWERS[asset]);
  }
}
