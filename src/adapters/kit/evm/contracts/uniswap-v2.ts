/**
 * Uniswap v2 as published on npm (@uniswap/v2-core 1.0.1, @uniswap/v2-periphery 1.1.0-beta.0):
 * ABIs and creation code read from the packages' build JSON, never recompiled (docs/decisions/0015-graduation-pool-uniswap-v2.md).
 *
 * The router finds a pair with UniswapV2Library.pairFor, which hard-codes the pair's init code
 * hash 0x96e8ac42…845f. keccak256 of the published UniswapV2Pair creation code is that same hash
 * (checked by test/adapters/chain/uniswap-v2.test.ts), so the published router works with the
 * published factory as they are. Our own reads still ask the factory (`getPair`), so a network
 * whose deployment differs cannot mislead us.
 */
import { createRequire } from 'node:module';
import { keccak256, type Abi, type Hex } from 'viem';

interface BuildJson {
  abi: Abi;
  bytecode: string;
}

const require = createRequire(import.meta.url);
const load = (path: string): { abi: Abi; bytecode: Hex } => {
  const json = require(path) as BuildJson;
  return { abi: json.abi, bytecode: `0x${json.bytecode.replace(/^0x/, '')}` };
};

export const UNISWAP_V2_FACTORY = load('@uniswap/v2-core/build/UniswapV2Factory.json');
export const UNISWAP_V2_PAIR = load('@uniswap/v2-core/build/UniswapV2Pair.json');
export const UNISWAP_V2_ROUTER = load('@uniswap/v2-periphery/build/UniswapV2Router02.json');
export const WETH9 = load('@uniswap/v2-periphery/build/WETH9.json');

/** The init code hash UniswapV2Library.pairFor (inside the published router) computes pairs with. */
export const ROUTER_PAIR_INIT_CODE_HASH: Hex = '0x96e8ac4277198ff8b6f785478aa9a39f403cb768dd02cbee326c3e7da348845f';
/** keccak256 of the published pair's creation code: what the factory's CREATE2 really uses. */
export const PAIR_INIT_CODE_HASH: Hex = keccak256(UNISWAP_V2_PAIR.bytecode);

export interface UniswapV2Addresses {
  factory: string;
  router: string;
}
