/** The viem chain of one of our networks at a given RPC URL (devnet or a real Base node). */
import type { Chain } from 'viem';
import { NETWORKS, type Network } from '../../../domain/network.js';

export function viemChain(network: Network, rpcUrl: string): Chain {
  return {
    id: NETWORKS[network].chainId,
    name: network,
    nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    rpcUrls: { default: { http: [rpcUrl] } },
  };
}

/** ERC-20 `transfer` and `balanceOf`, the parts of USDC the adapters call besides EIP-3009. */
export const ERC20_ABI = [
  {
    type: 'function',
    name: 'transfer',
    stateMutability: 'nonpayable',
    inputs: [
      { name: 'to', type: 'address' },
      { name: 'value', type: 'uint256' },
    ],
    outputs: [{ name: '', type: 'bool' }],
  },
  {
    type: 'function',
    name: 'balanceOf',
    stateMutability: 'view',
    inputs: [{ name: 'owner', type: 'address' }],
    outputs: [{ name: '', type: 'uint256' }],
  },
] as const;
