/**
 * The world the paid entrypoints' worked examples share (discovery documents: Bazaar's `info`
 * carries an example input and output that must validate against the schemas): one token, its
 * creator's wallet, a position after a $5 buy. Taken from a real run of the use cases (create, buy $5,
 * sell 100,000, info an hour later); a test parses each example with the zod schemas, so they cannot
 * drift from the API. Each room's examples are in its examples.ts, beside its entries.
 */
/**
 * One worked request and answer per paid entrypoint, for discovery documents (Bazaar's `info`
 * carries an example input and output that must validate against the schemas). Taken from a real
 * run of the use cases (create, buy $5, sell 100,000, info an hour later); a test parses each one
 * with the zod schemas, so they cannot drift from the API.
 */
export const TOKEN_ID = 'tok_01JD5X8W3K2M9N7P4Q6R8S0T2V';
export const WALLET = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';
export const NETWORK = 'eip155:84532';
export const CREATED = '2026-11-23T12:00:00.000Z';
export const TX = '0x5f1e9c4b2a7d3e8f6a1b0c9d8e7f6a5b4c3d2e1f0a9b8c7d6e5f4a3b2c1d0e9f';

/** A 1 × 1 PNG as a data: URL, and what the service names its copies (sha256 of the re-encoded WebP). */
export const IMAGE = 'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAACXBIWXMAAAPoAAAD6AG1e1JrAAAADElEQVR4nGMwXlUOAAJoAVVKio2KAAAAAElFTkSuQmCC';
export const IMAGE_SHA = '4c1b0d2e6f8a9b3c5d7e1f2a4b6c8d0e2f4a6b8c0d2e4f6a8b0c2d4e6f8a0b2c';
export const THUMBNAIL_SHA = '9e8d7c6b5a4f3e2d1c0b9a8f7e6d5c4b3a2f1e0d9c8b7a6f5e4d3c2b1a0f9e8d';

export const token = {
  tokenId: TOKEN_ID,
  network: NETWORK,
  name: 'Pepe Coin',
  symbol: 'PEPE',
  description: 'A frog.',
  imageUrl: `https://launchpad.example/images/${IMAGE_SHA}.webp`,
  thumbnailUrl: `https://launchpad.example/images/${THUMBNAIL_SHA}.webp`,
  creator: WALLET,
  links: { website: 'https://pepe.example/', twitter: 'https://x.com/pepecoin', telegram: 'https://t.me/pepecoin' },
  platformReferrer: null,
  launchFee: { startBps: 5000, endsAt: '2026-11-23T12:00:20.000Z' },
  feeMode: 'creator',
  creatorSplits: [{ wallet: WALLET, bps: 10000 }],
  vesting: null,
  state: 'ACTIVE',
  launchMode: 'curve',
  tradingSince: CREATED,
  decimals: 18,
  totalSupply: '1000000000',
  curve: {
    virtualUsdReserve: '6000',
    virtualTokenReserve: '1073000000',
    realUsdReserve: '0',
    realTokenReserve: '793100000',
    tokensSold: '0',
    curveSupply: '793100000',
    feeBps: 100,
    progress: '0',
  },
  priceUsd: '0.000005591798695246',
  marketCapUsd: '5591.798695',
  volumeUsd24h: '0',
  trades24h: 0,
  address: '0x7a1D4aE5B3c0b7E2f1B9cB7a2e0D8C6b5A4F3e21',
  deployment: { state: 'DEPLOYED', txHash: TX, blockNumber: '42' },
  pool: null,
  holders: 0,
  creatorEarningsUsd: '0',
  createdAt: CREATED,
  graduatedAt: null,
};

export const buyPosition = {
  network: NETWORK,
  wallet: WALLET,
  tokenId: TOKEN_ID,
  symbol: 'PEPE',
  balance: '884495.291384607698648614',
  costBasisUsd: '5',
  avgEntryPriceUsd: '0.000005652941342596',
  realizedPnlUsd: '0',
  currentPriceUsd: '0.000005601028969012',
  valueUsd: '4.954083',
  unrealizedPnlUsd: '-0.045917',
  onChainBalance: null,
  lockedBalance: '0',
  vesting: null,
  updatedAt: CREATED,
};
