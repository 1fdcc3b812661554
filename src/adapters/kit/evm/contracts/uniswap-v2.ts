/**
 * Uniswap v2 as published on npm (@uniswap/v2-core 1.0.1, @uniswap/v2-periphery 1.1.0-beta.0):
 * ABIs and creation code copied from the packages' build JSON into uniswap-v2.json beside this
 * file by `npm run contracts`, never recompiled (docs/decisions/0015-graduation-pool-uniswap-v2.md);
 * the service reads its own copy, so production installs no Uniswap package
 * (docs/decisions/0037-compiled-build-for-production.md), and a test checks the copy still equals
 * the packages.
 *
 * The router finds a pair with UniswapV2Library.pairFor, which hard-codes the pair's init code
 * hash 0x96e8ac42…845f. keccak256 of the published UniswapV2Pair creation code is that same hash
 * (checked by test/adapters/chain/uniswap-v2.test.ts), so the published router works with the
 * published factory as they are. Our own reads still ask the factory (`getPair`), so a network
 * whose deployment differs cannot mislead us.
 */
import { keccak256, type Abi, type Hex } from 'viem';
import published from './uniswap-v2.json' with { type: 'json' };

type Name = 'UniswapV2Factory' | 'UniswapV2Pair' | 'UniswapV2Router02' | 'WETH9';
const contracts = published.contracts as unknown as Record<Name, { abi: Abi; bytecode: Hex }>;

export const UNISWAP_V2_FACTORY = contracts.UniswapV2Factory;
export const UNISWAP_V2_PAIR = contracts.UniswapV2Pair;
export const UNISWAP_V2_ROUTER = contracts.UniswapV2Router02;
export const WETH9 = contracts.WETH9;

/** The init code hash UniswapV2Library.pairFor (inside the published router) computes pairs with. */
export const ROUTER_PAIR_INIT_CODE_HASH: Hex = '0x96e8ac4277198ff8b6f785478aa9a39f403cb768dd02cbee326c3e7da348845f';
/** keccak256 of the published pair's creation code: what the factory's CREATE2 really uses. */
export const PAIR_INIT_CODE_HASH: Hex = keccak256(UNISWAP_V2_PAIR.bytecode);

export interface UniswapV2Addresses {
  factory: string;
  router: string;
}
