/**
 * One worked request and answer per paid entrypoint, for discovery documents (Bazaar's `info`
 * carries an example input and output that must validate against the schemas). Taken from a real
 * run of the use cases (create, buy $5, sell 100,000, info an hour later); a test parses each one
 * with the zod schemas, so they cannot drift from the API.
 */
const TOKEN_ID = 'tok_01JD5X8W3K2M9N7P4Q6R8S0T2V';
const WALLET = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';
const NETWORK = 'eip155:84532';
const CREATED = '2026-11-23T12:00:00.000Z';
const TX = '0x5f1e9c4b2a7d3e8f6a1b0c9d8e7f6a5b4c3d2e1f0a9b8c7d6e5f4a3b2c1d0e9f';

/** A 1 × 1 PNG as a data: URL, and what the service names its copies (sha256 of the re-encoded WebP). */
const IMAGE = 'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAACXBIWXMAAAPoAAAD6AG1e1JrAAAADElEQVR4nGMwXlUOAAJoAVVKio2KAAAAAElFTkSuQmCC';
const IMAGE_SHA = '4c1b0d2e6f8a9b3c5d7e1f2a4b6c8d0e2f4a6b8c0d2e4f6a8b0c2d4e6f8a0b2c';
const THUMBNAIL_SHA = '9e8d7c6b5a4f3e2d1c0b9a8f7e6d5c4b3a2f1e0d9c8b7a6f5e4d3c2b1a0f9e8d';

const token = {
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

const buyPosition = {
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
  updatedAt: CREATED,
};

const buy = {
  tokenId: TOKEN_ID,
  tokensReceived: '884495.291384607698648614',
  usdSpent: '5',
  feeUsd: '0.05',
  priceUsd: '0.000005652941342596',
  spotPriceUsd: '0.000005601028969012',
  position: buyPosition,
  trade: {
    tradeId: 'trd_01JD5X9A1B2C3D4E5F6G7H8J9K',
    network: NETWORK,
    tokenId: TOKEN_ID,
    wallet: WALLET,
    side: 'buy',
    usdAmount: '5',
    feeUsd: '0.05',
    tokenAmount: '884495.291384607698648614',
    priceUsd: '0.000005652941342596',
    executionPriceUsd: '0.000005596411929170',
    paymentId: 'pay_01JD5X99ZYXWVTSRQPNMKJHGFE',
    settlementTx: TX,
    venue: 'curve',
    createdAt: CREATED,
  },
  delivery: {
    deliveryId: 'dlv_01JD5X9B1C2D3E4F5G6H7J8K9M',
    network: NETWORK,
    tokenId: TOKEN_ID,
    wallet: WALLET,
    amount: '884495.291384607698648614',
    state: 'PENDING',
    txHash: null,
    createdAt: CREATED,
    updatedAt: CREATED,
  },
  payment: { paymentId: 'pay_01JD5X99ZYXWVTSRQPNMKJHGFE', network: NETWORK, payer: WALLET, transaction: TX },
};

const sell = {
  tokenId: TOKEN_ID,
  tokensSold: '100000',
  usdReceived: '0.554449',
  feeUsd: '0.005601',
  priceUsd: '0.00000554449',
  spotPriceUsd: '0.000005599984260283',
  position: {
    ...buyPosition,
    balance: '784495.291384607698648614',
    costBasisUsd: '4.434706',
    avgEntryPriceUsd: '0.000005652941513737',
    realizedPnlUsd: '-0.010845',
    currentPriceUsd: '0.000005599984260283',
    valueUsd: '4.393161',
    unrealizedPnlUsd: '-0.041545',
    onChainBalance: '784495.291384607698648614',
  },
  trade: {
    tradeId: 'trd_01JD5XB0C1D2E3F4G5H6J7K8M9',
    network: NETWORK,
    tokenId: TOKEN_ID,
    wallet: WALLET,
    side: 'sell',
    usdAmount: '0.56005',
    feeUsd: '0.005601',
    tokenAmount: '100000',
    priceUsd: '0.0000056005',
    executionPriceUsd: '0.0000056005',
    paymentId: 'pay_01JD5XAZZYXWVTSRQPNMKJHGFE',
    settlementTx: TX,
    venue: 'curve',
    createdAt: CREATED,
  },
  payout: {
    payoutId: 'pout_01JD5XB1C2D3E4F5G6H7J8K9M0',
    asset: 'USDC',
    network: NETWORK,
    wallet: WALLET,
    amount: '0.554449',
    reason: 'sell',
    state: 'PENDING',
    txHash: null,
  },
  pullTx: TX,
};

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
  holdersTop: [{ wallet: WALLET, balance: '784495.291384607698648614', share: '1' }],
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

const PLEDGE_ID = 'pld_01JD5X9A1B2C3D4E5F6G7H8J9K';
const pledgeInput = {
  tokenId: TOKEN_ID,
  usdAmount: '25',
  authorization: {
    from: WALLET,
    to: '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266',
    value: '25000000',
    validAfter: '0',
    validBefore: '1795521000',
    nonce: '0x3e7a9c1f2b4d6e8a0c2e4f6a8b0d2f4a6c8e0a2c4e6f8a0b2d4f6a8c0e2a4c6e',
    signature: `0x${'cd'.repeat(64)}1c`,
  },
};
const pledge = { pledgeId: PLEDGE_ID, wallet: WALLET, usdAmount: '25', state: 'PLEDGED', tokens: '0', dropReason: null, payoutId: null, createdAt: '2026-11-23T12:05:00.000Z' };
const raisingNow = {
  tokenId: TOKEN_ID,
  network: NETWORK,
  state: 'RAISING',
  settling: false,
  goalUsd: '100',
  maxPerWalletUsd: '50',
  endsAt: '2026-11-24T12:00:00.000Z',
  pledgedUsd: '25',
  progress: '0.25',
  pledgers: 1,
  collectedUsd: '0',
  tokensBought: '0',
  remainderTokens: '0',
  priceUsd: null,
  tradeId: null,
  failure: null,
  byWallet: [{ wallet: WALLET, pledgedUsd: '25', tokens: '0' }],
  pledges: [pledge],
};

export interface EntrypointExample {
  input: Record<string, unknown>;
  output: Record<string, unknown>;
}

const comment = {
  commentId: 'cmt_01JD5X9A2B3C4D5E6F7G8H9J0K',
  tokenId: TOKEN_ID,
  network: NETWORK,
  author: WALLET,
  text: 'Holding since the first block. <b>this stays text</b>',
  hidden: false,
  hiddenAt: null,
  replyTo: null,
  createdAt: CREATED,
  holding: { balance: '884495.5', share: '0.011056' },
  badges: ['top_holder'],
};

export const ENTRYPOINT_EXAMPLES: Readonly<Record<string, EntrypointExample>> = {
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
  token_buy_usd: { input: { tokenId: TOKEN_ID, usdAmount: '5', minTokensOut: '880000' }, output: buy },
  token_buy_tokens: { input: { tokenId: TOKEN_ID, tokens: '884495', maxUsd: '5.01' }, output: buy },
  token_buy_quote: { input: { quoteId: 'qte_01JD5X7Q1R2S3T4V5W6X7Y8Z9A' }, output: buy },
  token_sell: {
    input: {
      tokenId: TOKEN_ID,
      tokens: '100000',
      minUsdOut: '0.55',
      tokenAuthorization: {
        from: WALLET,
        to: '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266',
        value: '100000000000000000000000',
        validAfter: '0',
        validBefore: '1795434600',
        nonce: '0x9c1f2b7e4d8a6c3b0f5e1d2c7a9b8e4f3d6c1a2b5e8f7d0c9b4a3e6f1d2c5b8a',
        signature: `0x${'ab'.repeat(64)}1b`,
      },
    },
    output: sell,
  },
  token_info: { input: { tokenId: TOKEN_ID }, output: info },
  token_comment: { input: { tokenId: TOKEN_ID, text: 'Holding since the first block. <b>this stays text</b>' }, output: comment },
  token_image: { input: { tokenId: TOKEN_ID, image: IMAGE }, output: token },
  token_pledge: { input: pledgeInput, output: { pledge, raise: raisingNow } },
  order_place: {
    input: {
      tokenId: TOKEN_ID,
      kind: 'limit_buy',
      triggerPriceUsd: '0.0000051',
      usdAmount: '25',
      expiresAt: '2026-12-31T00:00:00.000Z',
      authorization: {
        from: WALLET,
        to: '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266',
        value: '25000000',
        validAfter: '0',
        validBefore: '1798675200',
        nonce: '0x3a7c1e9b5d2f8a4c6e0b1d3f5a7c9e2b4d6f8a0c1e3b5d7f9a2c4e6b8d0f1a3c',
        signature: `0x${'cd'.repeat(64)}1c`,
      },
    },
    output: {
      orderId: 'ord_01JD5X7Q1R2S3T4V5W6X7Y8Z9B',
      tokenId: TOKEN_ID,
      network: 'eip155:8453',
      wallet: WALLET,
      kind: 'limit_buy',
      state: 'OPEN',
      triggerPriceUsd: '0.0000051',
      usdAmount: '25',
      tokens: null,
      minTokensOut: null,
      minUsdOut: null,
      asset: 'USDC',
      authorization: { from: WALLET, nonce: '0x3a7c1e9b5d2f8a4c6e0b1d3f5a7c9e2b4d6f8a0c1e3b5d7f9a2c4e6b8d0f1a3c', validBefore: '1798675200' },
      expiresAt: '2026-12-31T00:00:00.000Z',
      reason: null,
      tradeId: null,
      paymentId: 'pay_01JD5X7Q1R2S3T4V5W6X7Y8Z9C',
      createdAt: '2026-12-01T00:00:00.000Z',
      updatedAt: '2026-12-01T00:00:00.000Z',
    },
  },
};
