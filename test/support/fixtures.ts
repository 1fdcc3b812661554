/** Builders of domain values for contract suites: valid by default, overridable field by field. */
import type { AssetQuote } from '../../src/domain/asset-quote.js';
import { DEFAULT_CURVE_PARAMS, quoteBuyWithUsd } from '../../src/domain/curve.js';
import type { NewEvent } from '../../src/domain/event.js';
import { TESTNET, type Network } from '../../src/domain/network.js';
import type { Payment } from '../../src/domain/payment.js';
import { newPayout, type Payout } from '../../src/domain/payout.js';
import { applyBuy, emptyPosition, type Position } from '../../src/domain/position.js';
import type { Quote } from '../../src/domain/quote.js';
import { newToken, NO_LINKS, type Token } from '../../src/domain/token.js';
import type { Trade } from '../../src/domain/trade.js';

let seq = 0;
/** A ULID-shaped id that sorts in creation order within a test run. */
export function id(kind: string): string {
  seq += 1;
  return `${kind}_${(Date.now().toString(32) + seq.toString(32).padStart(8, '0')).toUpperCase().padStart(26, '0').slice(-26)}`;
}

export const T0 = new Date('2026-11-23T12:00:00.000Z');
export const at = (ms: number) => new Date(T0.getTime() + ms);
export const WALLET = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';
export const OTHER = '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC';

export function token(over: Partial<Token> & { symbol?: string } = {}): Token {
  const base = newToken({
    tokenId: over.tokenId ?? id('tok'),
    network: over.network ?? TESTNET,
    metadata: { name: over.name ?? `Token ${over.symbol ?? 'T'}`, symbol: over.symbol ?? 'T', description: null, imageUrl: null, thumbnailUrl: null, links: NO_LINKS },
    creator: over.creator ?? WALLET,
    params: DEFAULT_CURVE_PARAMS,
    address: '0x00000000000000000000000000000000000070c0',
    now: over.createdAt ?? T0,
  });
  return { ...base, ...over };
}

/** The token after a buy of `usd` USDC units: its curve moved. */
export function bought(t: Token, usd: bigint): Token {
  return { ...t, curve: quoteBuyWithUsd(t.params, t.curve, usd).after };
}

export function trade(over: Partial<Trade> = {}): Trade {
  return {
    tradeId: id('trd'),
    network: TESTNET,
    tokenId: 'tok_X',
    wallet: WALLET,
    side: 'buy',
    usdAmount: 5_000_000n,
    feeUsd: 50_000n,
    tokenAmount: 884495291384607698648614n,
    paymentId: null,
    settlementTx: null,
    venue: 'curve',
    createdAt: T0,
    ...over,
  };
}

export function position(over: Partial<Position> & { network?: Network } = {}): Position {
  const p = applyBuy(emptyPosition(over.network ?? TESTNET, over.wallet ?? WALLET, over.tokenId ?? 'tok_X', T0), 10n ** 18n, 1_000_000n, T0);
  return { ...p, ...over };
}

export function payment(over: Partial<Payment> = {}): Payment {
  return {
    paymentId: id('pay'),
    network: TESTNET,
    payer: WALLET,
    nonce: `0x${seq.toString(16).padStart(64, '0')}`,
    asset: 'USDC',
    amount: 10_000n,
    usdValue: 10_000n,
    quoteId: null,
    quotePrice: null,
    resource: 'token_create',
    resourceUrl: 'https://launchpad.example.com/entrypoints/token_create',
    requestHash: 'hash',
    signatureHash: 'sig',
    input: { name: 'A', symbol: 'A' },
    state: 'VERIFIED',
    settlementTx: null,
    validBefore: 2_000_000_000n,
    createdAt: T0,
    updatedAt: T0,
    ...over,
  };
}

export function payout(over: Partial<Payout> = {}): Payout {
  return {
    ...newPayout({
      payoutId: id('pout'),
      network: TESTNET,
      wallet: WALLET,
      amount: 2_451_259n,
      reason: 'sell',
      sourceId: id('trd'),
      now: T0,
    }),
    ...over,
  };
}

export function assetQuote(over: Partial<AssetQuote> = {}): AssetQuote {
  const quoteId = id('aqt');
  return {
    quoteId,
    holdKey: `hash:${TESTNET}:EURC:${quoteId}`,
    network: TESTNET,
    asset: 'EURC',
    price: { mantissa: 108n, scale: 2 },
    provider: 'median(chainlink,fixed)',
    observedAt: T0,
    createdAt: T0,
    expiresAt: at(60_000),
    ...over,
  };
}

export function quote(over: Partial<Quote> = {}): Quote {
  return {
    quoteId: id('qte'),
    tokenId: 'tok_X',
    network: TESTNET,
    side: 'buy',
    usdAmount: 5_000_000n,
    tokens: 884495291384607698648614n,
    minOut: 875650338470761621662127n,
    feeUsd: 50_000n,
    slippageBps: 100n,
    provider: 'curve',
    createdAt: T0,
    expiresAt: at(60_000),
    ...over,
  };
}

export function event(over: Partial<NewEvent> = {}): NewEvent {
  return { type: 'token.created', network: TESTNET, tokenId: 'tok_X', data: { n: 1 }, createdAt: T0, ...over };
}
