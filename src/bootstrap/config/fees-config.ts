/** The curve every new token gets, the prices of the paid calls, the trading fee and who shares it. */
import { z } from 'zod';
import { checkCurveParams, type CurveParams } from '../../domain/curve.js';
import { DEFAULT_SETTINGS } from '../../app/kit/default-settings.js';
import type { Settings } from '../../app/kit/settings.js';
import { ConfigError } from './config-error.js';
import { tokens, usd, type Parsed } from './env-values.js';

const bps = (max: number) => z.coerce.number().int().min(0).max(max);

export const feesEnv = {
  GRADUATION_FEE_USD: usd.optional(),
  MAX_BUY_USD: usd.optional(),
  MIN_BUY_USD: usd.optional(),
  FEE_BPS: bps(9999).optional(),
  CREATOR_FEE_SHARE_BPS: bps(10_000).default(5_000),
  PLATFORM_REFERRER_FEE_SHARE_BPS: bps(10_000).default(2_000),
  TRADE_REFERRER_FEE_SHARE_BPS: bps(10_000).default(1_000),
  EARNINGS_PAYOUT_MIN_USD: usd.optional(),
  LAUNCH_FEE_START_BPS: bps(9999).default(5_000),
  LAUNCH_FEE_DECAY_SECONDS: z.coerce.number().int().min(0).max(86_400).default(20),
  CREATE_PRICE_USD: usd.optional(),
  SELL_PRICE_USD: usd.optional(),
  PLEDGE_PRICE_USD: usd.optional(),
  ORDER_PRICE_USD: usd.optional(),
  INFO_PRICE_USD: usd.optional(),
  COMMENT_PRICE_USD: usd.optional(),
  IMAGE_PRICE_USD: usd.optional(),
  CURVE_TOTAL_SUPPLY: tokens.optional(),
  CURVE_SUPPLY: tokens.optional(),
  CURVE_VIRTUAL_USD: usd.optional(),
  CURVE_VIRTUAL_TOKENS: tokens.optional(),
};

type FeesEnv = Parsed<typeof feesEnv>;

export type FeeSettings = Pick<Settings, 'curve' | 'prices' | 'minBuyUsd' | 'maxBuyUsd' | 'graduationFeeUsd' | 'feeShares' | 'earningsPayoutMinUsd' | 'launchFee'>;

/** The curve names its parameters; the operator knows them by their settings. */
const CURVE_SETTINGS = {
  totalSupply: 'CURVE_TOTAL_SUPPLY',
  curveSupply: 'CURVE_SUPPLY',
  initialVirtualUsd: 'CURVE_VIRTUAL_USD',
  initialVirtualTokens: 'CURVE_VIRTUAL_TOKENS',
  feeBps: 'FEE_BPS',
};

function readCurve(e: FeesEnv): CurveParams {
  const d = DEFAULT_SETTINGS.curve;
  try {
    return checkCurveParams({
      totalSupply: e.CURVE_TOTAL_SUPPLY ?? d.totalSupply,
      curveSupply: e.CURVE_SUPPLY ?? d.curveSupply,
      initialVirtualUsd: e.CURVE_VIRTUAL_USD ?? d.initialVirtualUsd,
      initialVirtualTokens: e.CURVE_VIRTUAL_TOKENS ?? d.initialVirtualTokens,
      feeBps: e.FEE_BPS === undefined ? d.feeBps : BigInt(e.FEE_BPS),
    });
  } catch (err) {
    const named = Object.entries(CURVE_SETTINGS).reduce((m, [param, setting]) => m.replace(new RegExp(`\\b${param}\\b`, 'g'), setting), (err as Error).message);
    throw new ConfigError(`Invalid configuration: ${named.replace(/^invalid curve parameters: /, '')}.`);
  }
}

function readFeeShares(e: FeesEnv): Settings['feeShares'] {
  const feeShares = {
    creatorBps: BigInt(e.CREATOR_FEE_SHARE_BPS),
    platformReferrerBps: BigInt(e.PLATFORM_REFERRER_FEE_SHARE_BPS),
    tradeReferrerBps: BigInt(e.TRADE_REFERRER_FEE_SHARE_BPS),
  };
  if (feeShares.creatorBps + feeShares.platformReferrerBps + feeShares.tradeReferrerBps > 10_000n) {
    throw new ConfigError('Invalid configuration: CREATOR_FEE_SHARE_BPS + PLATFORM_REFERRER_FEE_SHARE_BPS + TRADE_REFERRER_FEE_SHARE_BPS must not exceed 10000 (they are shares of the fee).');
  }
  return feeShares;
}

export function readFees(e: FeesEnv): FeeSettings {
  const d = DEFAULT_SETTINGS;
  return {
    curve: readCurve(e),
    prices: {
      create: e.CREATE_PRICE_USD ?? d.prices.create,
      sell: e.SELL_PRICE_USD ?? d.prices.sell,
      order: e.ORDER_PRICE_USD ?? d.prices.order,
      info: e.INFO_PRICE_USD ?? d.prices.info,
      pledge: e.PLEDGE_PRICE_USD ?? d.prices.pledge,
      comment: e.COMMENT_PRICE_USD ?? d.prices.comment,
      image: e.IMAGE_PRICE_USD ?? d.prices.image,
    },
    minBuyUsd: e.MIN_BUY_USD ?? d.minBuyUsd,
    maxBuyUsd: e.MAX_BUY_USD ?? d.maxBuyUsd,
    graduationFeeUsd: e.GRADUATION_FEE_USD ?? d.graduationFeeUsd,
    feeShares: readFeeShares(e),
    earningsPayoutMinUsd: e.EARNINGS_PAYOUT_MIN_USD ?? d.earningsPayoutMinUsd,
    launchFee: { startBps: BigInt(e.LAUNCH_FEE_START_BPS), decayMs: BigInt(e.LAUNCH_FEE_DECAY_SECONDS) * 1000n },
  };
}
