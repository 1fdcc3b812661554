/** The two environments of SPEC §1. Each token lives on exactly one of them. */
export const PRODUCTION = 'eip155:8453';
export const TESTNET = 'eip155:84532';
export type Network = typeof PRODUCTION | typeof TESTNET;

export interface NetworkInfo {
  network: Network;
  chainId: number;
  environment: 'production' | 'testnet';
  /** USDC, the payment asset (6 decimals). */
  usdc: `0x${string}`;
  /** EIP-712 domain of the USDC contract, used by EIP-3009 signatures. */
  eip712: { name: string; version: string };
}

export const NETWORKS: Readonly<Record<Network, NetworkInfo>> = {
  [PRODUCTION]: {
    network: PRODUCTION,
    chainId: 8453,
    environment: 'production',
    usdc: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913',
    eip712: { name: 'USD Coin', version: '2' },
  },
  [TESTNET]: {
    network: TESTNET,
    chainId: 84532,
    environment: 'testnet',
    usdc: '0x036CbD53842c5426634e7929541eC2318f3dCF7e',
    eip712: { name: 'USDC', version: '2' },
  },
};

/** Production first: the order in which an unhinted 402 lists payment options (SPEC §2). */
export const ALL_NETWORKS: readonly Network[] = [PRODUCTION, TESTNET];

export function isNetwork(value: unknown): value is Network {
  return value === PRODUCTION || value === TESTNET;
}
