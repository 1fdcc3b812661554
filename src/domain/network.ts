/** The two environments of README.md. Each token lives on exactly one of them. */
export const PRODUCTION = 'eip155:8453';
export const TESTNET = 'eip155:84532';
export type Network = typeof PRODUCTION | typeof TESTNET;

/** The stablecoins a caller may pay with (docs/pricing.md): both 6 decimals, both EIP-3009. USDC first. */
export const PAYMENT_ASSETS = ['USDC', 'EURC'] as const;
export type PaymentAsset = (typeof PAYMENT_ASSETS)[number];

export interface AssetInfo {
  address: `0x${string}`;
  /** The EIP-712 domain of the contract, used by EIP-3009 signatures. */
  eip712: { name: string; version: string };
}

export interface NetworkInfo {
  network: Network;
  chainId: number;
  environment: 'production' | 'testnet';
  /** USDC, the payment asset (6 decimals). */
  usdc: `0x${string}`;
  /** EIP-712 domain of the USDC contract, used by EIP-3009 signatures. */
  eip712: { name: string; version: string };
  /** Every payment asset on this network (USDC repeated, EURC beside it). */
  assets: Readonly<Record<PaymentAsset, AssetInfo>>;
}

export const NETWORKS: Readonly<Record<Network, NetworkInfo>> = {
  [PRODUCTION]: {
    network: PRODUCTION,
    chainId: 8453,
    environment: 'production',
    usdc: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913',
    eip712: { name: 'USD Coin', version: '2' },
    assets: {
      USDC: { address: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913', eip712: { name: 'USD Coin', version: '2' } },
      EURC: { address: '0x60a3E35Cc302bFA44Cb288Bc5a4F316Fdb1adb42', eip712: { name: 'EURC', version: '2' } },
    },
  },
  [TESTNET]: {
    network: TESTNET,
    chainId: 84532,
    environment: 'testnet',
    usdc: '0x036CbD53842c5426634e7929541eC2318f3dCF7e',
    eip712: { name: 'USDC', version: '2' },
    assets: {
      USDC: { address: '0x036CbD53842c5426634e7929541eC2318f3dCF7e', eip712: { name: 'USDC', version: '2' } },
      EURC: { address: '0x808456652fdb597867f38412077A9182bf77359F', eip712: { name: 'EURC', version: '2' } },
    },
  },
};

/** Production first: the order in which an unhinted 402 lists payment options (docs/networks.md). */
export const ALL_NETWORKS: readonly Network[] = [PRODUCTION, TESTNET];

export function isNetwork(value: unknown): value is Network {
  return value === PRODUCTION || value === TESTNET;
}

/** The contract of `asset` on `network`. */
export function assetAddress(network: Network, asset: PaymentAsset): `0x${string}` {
  return NETWORKS[network].assets[asset].address;
}

/** Which payment asset sits at `address` on `network`, if any (any letter case). */
export function assetAt(network: Network, address: string): PaymentAsset | undefined {
  const lower = address.toLowerCase();
  return PAYMENT_ASSETS.find((a) => NETWORKS[network].assets[a].address.toLowerCase() === lower);
}
