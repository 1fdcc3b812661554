/**
 * What is where on the embedded devnet (docs/operations.md, "On this machine: the embedded
 * devnet"), the same on both chains and on every start: anvil's test accounts and what they hold,
 * the fixed addresses of the contracts the devnet places, the Uniswap v2 deployer and its
 * deployments, the mock price feeds, and the ABIs of the devnet's own stablecoins and feeds.
 */
import { getContractAddress, keccak256, toBytes, type Hex } from 'viem';
import { mnemonicToAccount, privateKeyToAccount } from 'viem/accounts';
import { PRODUCTION, TESTNET, type Network } from '../../../domain/network.js';
import type { PricedAsset } from '../../../domain/usd-price.js';
import { CONTRACTS, type ContractName } from '../../kit/evm/contracts/artifacts.js';

export const DEVNET_MNEMONIC = 'test test test test test test test test test test test junk';
export const MULTICALL3_ADDRESS = '0xcA11bde05977b3631167028862bE2a173976CA11';
/** Where the devnet places the LaunchFactory on both chains: the ASCII bytes of "LaunchFactory". */
export const LAUNCH_FACTORY_ADDRESS = '0x4C61756E6368466163746f727900000000000000';
/**
 * Uniswap v2 on the devnet (docs/operations.md, "Graduation pools") is deployed by its
 * constructors — the router keeps the factory and WETH in immutables, so placing code with
 * setCode would not do — from a deployer whose key is fixed here, with nonces 0 (WETH9), 1
 * (factory), 2 (router): the addresses follow from the key and are the same on both chains and
 * on every start.
 */
export const UNISWAP_DEPLOYER = privateKeyToAccount(keccak256(toBytes('x402-launchpad devnet: Uniswap v2 deployer')));
const deployedBy = (nonce: number): Hex => getContractAddress({ from: UNISWAP_DEPLOYER.address, nonce: BigInt(nonce) });
export const DEVNET_UNISWAP_V2 = { weth: deployedBy(0), factory: deployedBy(1), router: deployedBy(2) } as const;

/**
 * The x402 `upto` and `batch-settlement` contracts (decision 0073): ours, placed at the canonical
 * addresses `@x402/evm` names (contracts/X402Addresses.sol holds the same), on both chains.
 */
export const DEVNET_X402_CONTRACTS = [
  { name: 'Permit2', address: '0x000000000022D473030F116dDEE9F6B43aC78BA3' },
  { name: 'X402UptoPermit2Proxy', address: '0x4020A4f3b7b90ccA423B9fabCc0CE57C6C240002' },
  { name: 'X402BatchSettlement', address: '0x4020074e9dF2ce1deE5A9C1b5c3f541D02a10003' },
  { name: 'X402Erc3009DepositCollector', address: '0x4020806089470a89826cB9fB1f4059150b550004' },
  { name: 'X402Permit2DepositCollector', address: '0x4020425FAf3B746C082C2f942b4E5159887B0005' },
] as const satisfies readonly { name: ContractName; address: Hex }[];

/** 10,000 USDC (and 10,000 EURC). */
export const DEMO_BALANCE = 10_000_000_000n;
/**
 * USDC the treasury (account #0, custody) starts with on each devnet chain: its working capital.
 * Sell proceeds are paid in USDC whatever asset paid the fee, so a treasury paid only in EURC must
 * still be able to pay sellers (decision 0021).
 */
export const TREASURY_FLOAT = 10_000_000_000n;

/** The devnet's EIP-3009 stablecoins (DevUSDC and DevEURC share it) and its mock Chainlink feeds. */
export const USDC_ABI = CONTRACTS.DevUSDC.abi;
export const MOCK_AGGREGATOR_ABI = CONTRACTS.MockAggregator.abi;

/** Mock Chainlink feeds (8 decimals) at the same fixed addresses on both chains: EUR/USD prices EURC. */
export const DEVNET_PRICE_FEEDS = {
  EURC: '0x0000000000000000000000000000000000feed01',
  USDC: '0x0000000000000000000000000000000000feed02',
} as const satisfies Partial<Record<PricedAsset, Hex>>;
export type DevnetFeedAsset = keyof typeof DEVNET_PRICE_FEEDS;
/** Their first answers: EUR/USD 1.08, USDC/USD 1.00. */
export const DEVNET_FEED_ANSWERS: Record<DevnetFeedAsset, bigint> = { EURC: 108_000_000n, USDC: 100_000_000n };

/** anvil's account `index` of the test mnemonic. */
export const devnetAccount = (index: number) => mnemonicToAccount(DEVNET_MNEMONIC, { addressIndex: index });

/**
 * Who holds USDC (and EURC) where (docs/operations.md): #1–#4 on 8453 only (production wallets),
 * #5–#9 on 84532 only.
 */
export const FUNDED: Record<Network, number[]> = { [PRODUCTION]: [1, 2, 3, 4], [TESTNET]: [5, 6, 7, 8, 9] };
