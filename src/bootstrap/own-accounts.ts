/**
 * The service's own accounts and contracts that no port names (decision 0039): the treasury's and
 * the settlement key's accounts, and the Uniswap v2 router and factory custody trades through.
 * The app refuses each as a referrer (src/app/trading/check-referrer.ts).
 */
import type { Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import type { UniswapV2Config } from './config/chain-config.js';
import type { Network } from '../domain/network.js';

export function ownAccounts(keys: { treasuryKey: Hex; settlementKey: Hex }, uniswap: Partial<Record<Network, UniswapV2Config>>): Record<string, string> {
  const own: Record<string, string> = {
    [privateKeyToAccount(keys.treasuryKey).address]: "the treasury key's account",
  };
  const settlement = privateKeyToAccount(keys.settlementKey).address;
  own[settlement] ??= "the settlement key's account";
  for (const u of Object.values(uniswap)) {
    if (!u) continue;
    own[u.router] = 'the Uniswap v2 router';
    own[u.factory] = 'the Uniswap v2 factory';
  }
  return own;
}
