/** A token's paid entrypoints' worked examples: create, analytics, image. For discovery documents (kit/catalogue/example-fixtures.ts says how they are kept true). */
import type { EntrypointExample } from '../kit/catalogue/entrypoint.js';
import { TOKEN_ID, WALLET, CREATED, IMAGE, token } from '../kit/catalogue/example-fixtures.js';
const info = {
  ...token,
  curve: {
    virtualUsdReserve: '6004.38995',
    virtualTokenReserve: '1072215504.708615392301351386',
    realUsdReserve: '4.38995',
    realTokenReserve: '792315504.708615392301351386',
    tokensSold: '784495.291384607698648614',
    curveSupply: '793100000',
    feeBps: 100,
    progress: '0.0009',
  },
  priceUsd: '0.000005599984260283',
  marketCapUsd: '5599.98426',
  volumeUsd24h: '5.56005',
  trades24h: 2,
  holders: 1,
  holdersTop: [{ wallet: WALLET, balance: '784495.291384607698648614', share: '1', locked: '0' }],
  priceChange24h: '0.001463',
  candles1h: [
    {
      openTime: CREATED,
      open: '0.000005652941342596',
      high: '0.000005652941342596',
      low: '0.0000056005',
      close: '0.0000056005',
      volumeUsd: '5.56005',
      trades: 2,
    },
  ],
};

export const TOKEN_EXAMPLES = {
  token_create: {
    input: {
      name: 'Pepe Coin',
      symbol: 'PEPE',
      description: 'A frog.',
      image: IMAGE,
      website: 'https://pepe.example',
      twitter: '@pepecoin',
      telegram: 'https://t.me/pepecoin',
    },
    output: token,
  },
  token_info: { input: { tokenId: TOKEN_ID }, output: info },
  token_image: { input: { tokenId: TOKEN_ID, image: IMAGE }, output: token },
} satisfies Record<string, EntrypointExample>;
