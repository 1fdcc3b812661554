/**
 * The Chainlink adapter on the devnet's mock feeds (contracts/MockAggregator.sol): it reads each
 * chain's rounds through viem, takes staleness from updatedAt (the router then drops a stale
 * round and prices from the other sources), and refuses a negative, zero or incomplete round.
 */
import { describe, expect, it } from 'vitest';
import type { Hex } from 'viem';
import { DEVNET_PRICE_FEEDS } from '../../../src/adapters/chain/anvil/devnet-constants.js';
import { SystemClock } from '../../../src/adapters/clock/system/system-clock.js';
import { ChainlinkQuoteProvider } from '../../../src/adapters/quotes/chainlink/chainlink-quote-provider.js';
import { FixedQuoteProvider } from '../../../src/adapters/quotes/fixed/fixed-quote-provider.js';
import { QuoteRouter } from '../../../src/app/pricing/quote-router.js';
import { PRODUCTION, TESTNET, type Network } from '../../../src/domain/network.js';
import { formatUsdPrice, type PricedAsset } from '../../../src/domain/usd-price.js';
import { QuoteFailure } from '../../../src/ports/quote-provider.js';
import { devnetPerFile } from '../../support/devnet.js';


const devnet = devnetPerFile();

const clock = new SystemClock();
const chainlink = (feeds: Partial<Record<PricedAsset, Hex>> = DEVNET_PRICE_FEEDS) =>
  new ChainlinkQuoteProvider({
    clock,
    rpcUrls: { [PRODUCTION]: devnet.chains[PRODUCTION].rpcUrl, [TESTNET]: devnet.chains[TESTNET].rpcUrl },
    feeds: { [PRODUCTION]: feeds, [TESTNET]: feeds },
  });
const blockTime = async (network: Network) => (await devnet.publicClient(network).getBlock()).timestamp;

async function failure(p: Promise<unknown>): Promise<QuoteFailure> {
  const e = await p.then(
    () => new Error('expected a failure'),
    (err: unknown) => err,
  );
  expect(e).toBeInstanceOf(QuoteFailure);
  return e as QuoteFailure;
}

describe('ChainlinkQuoteProvider on the devnet mock feeds', () => {
  it('reads EUR/USD 1.08 for EURC and USDC/USD 1 on both chains, updated now', async () => {
    for (const network of [PRODUCTION, TESTNET] as const) {
      const eurc = await chainlink().usdPrice('EURC', network);
      expect(formatUsdPrice(eurc.price)).toBe('1.08');
      // A live round is as old as the chain's time, not the time it was set.
      expect(eurc.observedAt.getTime() / 1000).toBeGreaterThanOrEqual(Number(await blockTime(network)));
      expect(Math.abs(eurc.observedAt.getTime() - clock.now().getTime())).toBeLessThan(120_000);
      expect(formatUsdPrice((await chainlink().usdPrice('USDC', network)).price)).toBe('1');
    }
  });

  it('follows a new round, on its own chain only', async () => {
    await devnet.setFeedRound(TESTNET, 'EURC', 109_250_000n);
    expect(formatUsdPrice((await chainlink().usdPrice('EURC', TESTNET)).price)).toBe('1.0925');
    expect(formatUsdPrice((await chainlink().usdPrice('EURC', PRODUCTION)).price)).toBe('1.08');
  });

  it('a stale round keeps its old updatedAt; the router drops it and prices from the others', async () => {
    const twoDaysAgo = (await blockTime(TESTNET)) - 2n * 86_400n;
    await devnet.setFeedRound(TESTNET, 'EURC', 150_000_000n, twoDaysAgo);
    const source = chainlink();
    const quote = await source.usdPrice('EURC', TESTNET);
    expect(quote.observedAt.getTime()).toBe(Number(twoDaysAgo) * 1000);
    expect(clock.now().getTime() - quote.observedAt.getTime()).toBeGreaterThan(source.maxAgeMs('EURC'));

    const limit = { points: 100, durationSeconds: 1, maxQueueSize: 10 };
    const router = new QuoteRouter({
      clock,
      providers: [
        { provider: source, limit, timeoutMs: 5_000 },
        { provider: new FixedQuoteProvider({ clock, prices: { EURC: '1.08' } }), limit, timeoutMs: 5_000 },
      ],
    });
    const priced = await router.usdPrice('EURC', TESTNET);
    expect([formatUsdPrice(priced.price), priced.provider]).toEqual(['1.08', 'median(fixed)']);
    expect(router.lastRound('EURC', TESTNET)!.answers.map((a) => [a.provider, a.status])).toEqual([
      ['chainlink', 'stale'],
      ['fixed', 'ok'],
    ]);
  });

  it.each([
    ['a negative answer', -108_000_000n, 'absurd'],
    ['a zero answer', 0n, 'absurd'],
  ] as const)('%s is refused, not a price', async (_what, answer, kind) => {
    await devnet.setFeedRound(PRODUCTION, 'EURC', answer);
    expect((await failure(chainlink().usdPrice('EURC', PRODUCTION))).kind).toBe(kind);
  });

  it('a round that never completed (updatedAt 0) is malformed', async () => {
    await devnet.setFeedRound(PRODUCTION, 'USDC', 100_000_000n, 0n);
    expect((await failure(chainlink().usdPrice('USDC', PRODUCTION))).kind).toBe('malformed');
  });

  it('a feed address with no contract is unavailable', async () => {
    const nowhere = { EURC: '0x0000000000000000000000000000000000dead01', USDC: DEVNET_PRICE_FEEDS.USDC } as const;
    expect((await failure(chainlink(nowhere).usdPrice('EURC', PRODUCTION))).kind).toBe('unavailable');
  });

  it('an RPC that does not answer is unavailable', async () => {
    const down = new ChainlinkQuoteProvider({
      clock,
      rpcUrls: { [PRODUCTION]: 'http://127.0.0.1:9' },
      feeds: { [PRODUCTION]: DEVNET_PRICE_FEEDS },
      timeoutMs: 1_000,
    });
    expect((await failure(down.usdPrice('EURC', PRODUCTION))).kind).toBe('unavailable');
  });

  it('only account #0 sets rounds', async () => {
    const { createWalletClient, http } = await import('viem');
    const { devnetAccount, MOCK_AGGREGATOR_ABI } = await import('../../../src/adapters/chain/anvil/devnet-constants.js');
    const { viemChain } = await import('../../../src/adapters/kit/evm/viem-chain.js');
    const url = devnet.chains[TESTNET].rpcUrl;
    const stranger = createWalletClient({ account: devnetAccount(5), chain: viemChain(TESTNET, url), transport: http(url) });
    await expect(
      stranger.writeContract({ address: DEVNET_PRICE_FEEDS.EURC, abi: MOCK_AGGREGATOR_ABI, functionName: 'setAnswer', args: [1n] }),
    ).rejects.toThrow(/only account #0/);
  });
});
