/** An order's worked example: a $25 limit buy. For discovery documents (kit/catalogue/example-fixtures.ts says how they are kept true). */
import type { EntrypointExample } from '../kit/catalogue/entrypoint.js';
import { TOKEN_ID, WALLET } from '../kit/catalogue/example-fixtures.js';

export const ORDER_EXAMPLES = {
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
} satisfies Record<string, EntrypointExample>;
