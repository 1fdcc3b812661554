/**
 * Builds the quote router from the configuration (part of the composition root): the sources
 * QUOTE_PROVIDERS names, each with its limit and the shared timeout, behind one QuoteRouter.
 * On the devnet the Chainlink adapter reads the mock feeds of each chain; with real RPCs it reads
 * the Base mainnet feeds for both networks (a testnet EURC is priced as the real one).
 */
import { DEVNET_PRICE_FEEDS } from '../adapters/chain/anvil/devnet-constants.js';
import { ChainlinkQuoteProvider, BASE_MAINNET_FEEDS } from '../adapters/quotes/chainlink/chainlink-quote-provider.js';
import { CoinbaseQuoteProvider } from '../adapters/quotes/coinbase/coinbase-quote-provider.js';
import { CoinGeckoQuoteProvider } from '../adapters/quotes/coingecko/coingecko-quote-provider.js';
import { FixedQuoteProvider } from '../adapters/quotes/fixed/fixed-quote-provider.js';
import { PythQuoteProvider } from '../adapters/quotes/pyth/pyth-quote-provider.js';
import type { Config } from './config/config.js';
import { QuoteRouter } from '../app/pricing/quote-router.js';
import type { QuoteProviderName } from '../app/pricing/provider-defaults.js';
import { PRODUCTION, TESTNET, type Network } from '../domain/network.js';
import type { Clock } from '../ports/clock.js';
import type { Logger } from '../ports/logger.js';
import type { QuoteProvider } from '../ports/quote-provider.js';

export interface QuoteChain {
  /** Where the Chainlink feeds are read; null when the service runs without a chain (tests over fakes). */
  rpcUrls: Record<Network, string> | null;
  devnet: boolean;
}

export function buildQuoteRouter(config: Config, chain: QuoteChain, clock: Clock, logger: Logger): QuoteRouter {
  const q = config.quotes;
  const make: Record<QuoteProviderName, () => QuoteProvider | null> = {
    chainlink: () => {
      if (!chain.rpcUrls) return null; // no chain to read feeds from
      if (chain.devnet) {
        return new ChainlinkQuoteProvider({ clock, rpcUrls: chain.rpcUrls, feeds: { [PRODUCTION]: DEVNET_PRICE_FEEDS, [TESTNET]: DEVNET_PRICE_FEEDS } });
      }
      const mainnet = chain.rpcUrls[PRODUCTION];
      return new ChainlinkQuoteProvider({
        clock,
        rpcUrls: { [PRODUCTION]: mainnet, [TESTNET]: mainnet },
        feeds: { [PRODUCTION]: BASE_MAINNET_FEEDS, [TESTNET]: BASE_MAINNET_FEEDS },
        networkIndependent: true,
      });
    },
    coinbase: () => new CoinbaseQuoteProvider({ clock, ...(q.coinbaseUrl ? { baseUrl: q.coinbaseUrl } : {}) }),
    coingecko: () => new CoinGeckoQuoteProvider({ clock, apiKey: q.coingeckoApiKey, ...(q.coingeckoUrl ? { baseUrl: q.coingeckoUrl } : {}) }),
    pyth: () => new PythQuoteProvider({ clock, apiKey: q.pythApiKey, ...(q.pythUrl ? { baseUrl: q.pythUrl } : {}) }),
    fixed: () => new FixedQuoteProvider({ clock, prices: q.fixedPrices }),
  };
  const providers = q.providers.flatMap((name) => {
    const provider = make[name]();
    return provider ? [{ provider, limit: q.limits[name], timeoutMs: q.timeoutMs }] : [];
  });
  return new QuoteRouter({
    providers,
    clock,
    logger,
    maxSpreadBps: q.maxSpreadBps,
    cacheMs: q.cacheMs,
    deadlineMs: q.deadlineMs,
    breaker: q.breaker,
  });
}
