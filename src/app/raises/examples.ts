/** A pledge's worked example: $25 pledged to a raise under way. For discovery documents (kit/catalogue/example-fixtures.ts says how they are kept true). */
import type { EntrypointExample } from '../kit/catalogue/entrypoint.js';
import { TOKEN_ID, WALLET, NETWORK } from '../kit/catalogue/example-fixtures.js';
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

export const RAISE_EXAMPLES = {
  token_pledge: { input: pledgeInput, output: { pledge, raise: raisingNow } },
} satisfies Record<string, EntrypointExample>;
