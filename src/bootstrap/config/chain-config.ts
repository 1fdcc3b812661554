/**
 * The chains and what the service holds on them: the embedded devnet or real RPC URLs, the keys
 * that sign, where payments go, the LaunchFactory and Uniswap v2 per network, the facilitator.
 */
import { z } from 'zod';
import { PRODUCTION, TESTNET, type Network } from '../../domain/network.js';
import { DEFAULT_SETTINGS } from '../../app/kit/default-settings.js';
import { ConfigError } from './config-error.js';
import { address, flag, privateKey, type Parsed } from './env-values.js';

export const chainEnv = {
  FACILITATOR_URL: z.url().optional(),
  RPC_URL_8453: z.string().optional(),
  RPC_URL_84532: z.string().optional(),
  DEVNET_PORT: z.coerce.number().int().min(1).max(65534).default(8545),
  DEVNET_IDLE_BLOCK_SECONDS: z.coerce.number().int().min(0).max(3600).default(5),
  PAY_TO_8453: address.optional(),
  PAY_TO_84532: address.optional(),
  TREASURY_KEY: privateKey.optional(),
  SETTLEMENT_KEY: privateKey.optional(),
  LAUNCH_FACTORY_8453: address.optional(),
  LAUNCH_FACTORY_84532: address.optional(),
  UNISWAP_V2_ROUTER_8453: address.optional(),
  UNISWAP_V2_FACTORY_8453: address.optional(),
  UNISWAP_V2_ROUTER_84532: address.optional(),
  UNISWAP_V2_FACTORY_84532: address.optional(),
  NETWORK_DETECTION_FAIL_CLOSED: flag.default(false),
  DROPPED_AFTER_BLOCKS: z.coerce.number().int().min(1).max(64).optional(),
};

type ChainEnv = Parsed<typeof chainEnv>;

export interface UniswapV2Config {
  router: `0x${string}`;
  factory: `0x${string}`;
}

/** Uniswap's published v2 on Base mainnet (docs.uniswap.org "V2 Deployment Addresses"; docs.base.org "Ecosystem Contracts"). */
const BASE_UNISWAP_V2: UniswapV2Config = {
  factory: '0x8909Dc15e40173Ff4699343b6eB8132c65e18eC6',
  router: '0x4752ba5DBc23f44D87826276BF6Fd6b1C372aD24',
};

export interface ChainConfig {
  facilitatorUrl: string | undefined;
  rpcUrls: { [PRODUCTION]: string[] | undefined; [TESTNET]: string[] | undefined };
  devnetPort: number;
  /** The devnet mines an empty block after this much idleness (0: never), like a real chain. */
  devnetIdleBlockMs: number;
  treasuryKey: `0x${string}` | undefined;
  settlementKey: `0x${string}` | undefined;
  /** The LaunchFactory per network on real RPCs; unset = the devnet's (docs/api.md "Tokens on chain"). */
  launchFactories: { [PRODUCTION]: `0x${string}` | undefined; [TESTNET]: `0x${string}` | undefined };
  /**
   * Uniswap v2 per network on real RPCs (docs/api.md "Graduation and the Uniswap v2 pool"): Base defaults to Uniswap's published
   * deployment; a network without one keeps graduated tokens waiting for their pool.
   */
  uniswapV2: { [PRODUCTION]: UniswapV2Config | undefined; [TESTNET]: UniswapV2Config | undefined };
  /** Chain access: the embedded devnet unless RPC URLs are given. */
  chain: 'devnet' | 'rpc';
  detectionFailClosed: boolean;
  /**
   * How deep a nonce of ours must be used, with no receipt for its transaction, before that
   * transaction is called dropped and signed again (decision 0056): 1 block on the devnet (it stores
   * its blocks in order), 5 on real RPCs (10 s of Base: room for the nodes behind one URL to lag).
   */
  droppedAfterBlocks: number;
}

/** What real money needs, checked together: the default treasury is anvil's account #0, whose key is public. */
function checkChain(e: ChainEnv): void {
  if ((e.RPC_URL_8453 === undefined) !== (e.RPC_URL_84532 === undefined)) {
    throw new ConfigError('Invalid configuration: set both RPC_URL_8453 and RPC_URL_84532, or neither (embedded devnet).');
  }
  if (e.RPC_URL_8453 && (!e.PAY_TO_8453 || !e.PAY_TO_84532)) {
    throw new ConfigError('Invalid configuration: PAY_TO_8453 and PAY_TO_84532 are required with real RPC URLs.');
  }
  if (e.RPC_URL_8453 && (!e.LAUNCH_FACTORY_8453 || !e.LAUNCH_FACTORY_84532)) {
    throw new ConfigError('Invalid configuration: LAUNCH_FACTORY_8453 and LAUNCH_FACTORY_84532 are required with real RPC URLs (they deploy launched tokens; docs/operations.md).');
  }
  for (const id of ['8453', '84532'] as const) {
    if ((e[`UNISWAP_V2_ROUTER_${id}`] === undefined) !== (e[`UNISWAP_V2_FACTORY_${id}`] === undefined)) {
      throw new ConfigError(`Invalid configuration: set both UNISWAP_V2_ROUTER_${id} and UNISWAP_V2_FACTORY_${id}, or neither.`);
    }
  }
  if (e.RPC_URL_8453 && !e.TREASURY_KEY) {
    throw new ConfigError('Invalid configuration: TREASURY_KEY is required with real RPC URLs (it sends payouts).');
  }
}

/** Whether real RPC URLs are given (the defaults of the quote sources and the indexer follow). */
export const isRealChain = (e: ChainEnv): boolean => Boolean(e.RPC_URL_8453 || e.RPC_URL_84532);

const hex = (v: string | undefined) => v as `0x${string}` | undefined;
// Several URLs per network are comma-separated; the first is used for writes.
const urls = (v: string | undefined) => (v ? v.split(',').map((s) => s.trim()).filter(Boolean) : undefined);
const uniswap = (router: string | undefined, factory: string | undefined) => (router ? { router: hex(router)!, factory: hex(factory)! } : undefined);

export function readChain(e: ChainEnv): ChainConfig {
  checkChain(e);
  return {
    facilitatorUrl: e.FACILITATOR_URL,
    rpcUrls: { [PRODUCTION]: urls(e.RPC_URL_8453), [TESTNET]: urls(e.RPC_URL_84532) },
    devnetPort: e.DEVNET_PORT,
    devnetIdleBlockMs: e.DEVNET_IDLE_BLOCK_SECONDS * 1000,
    treasuryKey: hex(e.TREASURY_KEY),
    settlementKey: hex(e.SETTLEMENT_KEY),
    launchFactories: { [PRODUCTION]: hex(e.LAUNCH_FACTORY_8453), [TESTNET]: hex(e.LAUNCH_FACTORY_84532) },
    uniswapV2: {
      [PRODUCTION]: uniswap(e.UNISWAP_V2_ROUTER_8453, e.UNISWAP_V2_FACTORY_8453) ?? BASE_UNISWAP_V2,
      [TESTNET]: uniswap(e.UNISWAP_V2_ROUTER_84532, e.UNISWAP_V2_FACTORY_84532),
    },
    chain: isRealChain(e) ? 'rpc' : 'devnet',
    detectionFailClosed: e.NETWORK_DETECTION_FAIL_CLOSED,
    droppedAfterBlocks: e.DROPPED_AFTER_BLOCKS ?? (isRealChain(e) ? 5 : 1),
  };
}

/** The treasury payments go to, per network (a setting the use cases read). */
export function readPayTo(e: ChainEnv): Record<Network, string> {
  return { [PRODUCTION]: e.PAY_TO_8453 ?? DEFAULT_SETTINGS.payTo[PRODUCTION], [TESTNET]: e.PAY_TO_84532 ?? DEFAULT_SETTINGS.payTo[TESTNET] };
}
