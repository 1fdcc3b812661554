import { DEFAULT_CURVE_PARAMS } from '../../domain/curve.js';
import { USDC_UNIT } from '../../domain/money.js';
import { PRODUCTION, TESTNET } from '../../domain/network.js';
import type { Settings } from './settings.js';

/** docs/api.md "Curve and prices" defaults; the configuration (src/bootstrap/config/) overrides them from the environment. */
export const DEFAULT_SETTINGS: Settings = {
  curve: DEFAULT_CURVE_PARAMS,
  prices: {
    create: USDC_UNIT / 100n,
    sell: USDC_UNIT / 100n,
    order: USDC_UNIT / 100n,
    info: USDC_UNIT / 1000n,
    pledge: USDC_UNIT / 100n,
    comment: USDC_UNIT / 1000n,
    image: USDC_UNIT / 100n,
  },
  minBuyUsd: USDC_UNIT / 100n,
  maxBuyUsd: 10_000n * USDC_UNIT,
  quoteTtlSeconds: 60,
  usdcDepegFloor: { mantissa: 98n, scale: 2 },
  quoteMaxSpreadBps: 100n,
  defaultSlippageBps: 100n,
  // anvil's account #0, the devnet treasury (docs/operations.md)
  payTo: {
    [PRODUCTION]: '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266',
    [TESTNET]: '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266',
  },
  // The settlement key signs claims and refunds; on the devnet it is the treasury's, anvil's #0.
  batchSettlement: {
    receiverAuthorizer: {
      [PRODUCTION]: '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266',
      [TESTNET]: '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266',
    },
    withdrawDelaySeconds: 900,
  },
  // The settlement key settles upto payments; on the devnet it is the treasury's, anvil's #0.
  upto: {
    facilitatorAddress: {
      [PRODUCTION]: '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266',
      [TESTNET]: '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266',
    },
  },
  serviceVersion: '0.1.0',
  pullWaitMs: 20_000,
  graduationFeeUsd: 0n,
  feeShares: { creatorBps: 5_000n, platformReferrerBps: 2_000n, tradeReferrerBps: 1_000n },
  earningsPayoutMinUsd: USDC_UNIT,
  launchFee: { startBps: 5_000n, decayMs: 20_000n },
};
