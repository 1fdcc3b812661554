/**
 * Chainlink price feeds read with viem: `latestRoundData()` gives the answer and `updatedAt`,
 * `decimals()` its scale (AggregatorV3Interface, https://docs.chain.link/data-feeds/api-reference).
 * The answer's age is `updatedAt`, so a feed that stopped updating is stale, not wrong; an answer
 * ≤ 0 is refused. EURC is priced with the EUR/USD feed (EURC is redeemable 1:1 for euros).
 * Feed addresses on Base: https://docs.chain.link/data-feeds/price-feeds/addresses?network=base
 */
import { createPublicClient, type Address, type PublicClient } from 'viem';
import type { Network } from '../../../domain/network.js';
import { InvalidPrice, usdPriceFromScaled, type PricedAsset } from '../../../domain/usd-price.js';
import type { Clock } from '../../../ports/clock.js';
import { QuoteFailure, type QuoteProvider, type UsdPriceOptions, type UsdQuote } from '../../../ports/quote-provider.js';
import { rpcTransport } from '../../kit/evm/rpc-transport.js';

/** Base mainnet proxies: EUR/USD, USDC/USD, ETH/USD (data.chain.link/feeds/base/base/…). */
export const BASE_MAINNET_FEEDS: Record<PricedAsset, Address> = {
  EURC: '0xc91D87E81faB8f93699ECf7Ee9B44D11e1D53F0F',
  USDC: '0x7e860098F58bBFC8648a4311b374B1D669a2bc6B',
  ETH: '0x71041dddad3595F9CEd3DcCFBe3D1F4b0a16Bb70',
};

/** Published heartbeats of those feeds: a new round at least this often even when the price is flat. */
export const FEED_HEARTBEAT_SECONDS: Record<PricedAsset, number> = { EURC: 86_400, USDC: 86_400, ETH: 1_200 };

export const AGGREGATOR_V3_ABI = [
  { type: 'function', name: 'decimals', stateMutability: 'view', inputs: [], outputs: [{ name: '', type: 'uint8' }] },
  {
    type: 'function',
    name: 'latestRoundData',
    stateMutability: 'view',
    inputs: [],
    outputs: [
      { name: 'roundId', type: 'uint80' },
      { name: 'answer', type: 'int256' },
      { name: 'startedAt', type: 'uint256' },
      { name: 'updatedAt', type: 'uint256' },
      { name: 'answeredInRound', type: 'uint80' },
    ],
  },
] as const;

export interface ChainlinkQuoteProviderOptions {
  clock: Clock;
  /** Where each network's feeds are read. */
  rpcUrls: Partial<Record<Network, string>>;
  /** The feed of each asset on each network. */
  feeds: Partial<Record<Network, Partial<Record<PricedAsset, Address>>>>;
  /** Heartbeats to derive staleness from (default: FEED_HEARTBEAT_SECONDS). */
  heartbeatSeconds?: Partial<Record<PricedAsset, number>>;
  /** True when every network reads the same feeds (real networks read Base mainnet for both). */
  networkIndependent?: boolean;
  timeoutMs?: number;
}

export class ChainlinkQuoteProvider implements QuoteProvider {
  readonly name = 'chainlink';
  readonly networkIndependent: boolean;
  private readonly clients = new Map<Network, PublicClient>();
  private readonly decimals = new Map<string, number>();

  constructor(private readonly options: ChainlinkQuoteProviderOptions) {
    this.networkIndependent = options.networkIndependent ?? false;
  }

  supports(asset: PricedAsset, network: Network): boolean {
    return this.options.rpcUrls[network] !== undefined && this.options.feeds[network]?.[asset] !== undefined;
  }

  /** The heartbeat plus 10 %: a round a little late is fine, a missed heartbeat is stale. */
  maxAgeMs(asset: PricedAsset): number {
    const heartbeat = this.options.heartbeatSeconds?.[asset] ?? FEED_HEARTBEAT_SECONDS[asset];
    return Math.round(heartbeat * 1100);
  }

  async usdPrice(asset: PricedAsset, network: Network, options: UsdPriceOptions = {}): Promise<UsdQuote> {
    const feed = this.options.feeds[network]?.[asset];
    if (!feed || !this.supports(asset, network)) throw new QuoteFailure(this.name, 'unsupported', `no ${asset} feed on ${network}`);
    if (options.signal?.aborted) throw new QuoteFailure(this.name, 'timeout', 'the caller stopped waiting');
    const client = this.client(network);
    let answer: bigint;
    let updatedAt: bigint;
    let decimals: number;
    try {
      [[, answer, , updatedAt], decimals] = await abortable(
        Promise.all([
          client.readContract({ address: feed, abi: AGGREGATOR_V3_ABI, functionName: 'latestRoundData' }),
          this.feedDecimals(client, network, feed),
        ]),
        options.signal,
      );
    } catch (e) {
      if (options.signal?.aborted) throw new QuoteFailure(this.name, 'timeout', 'no answer within the time allowed');
      throw new QuoteFailure(this.name, 'unavailable', `reading ${feed} on ${network} failed: ${firstLine(e)}`);
    }
    if (updatedAt === 0n) throw new QuoteFailure(this.name, 'malformed', `feed ${feed} has no complete round`);
    try {
      return {
        asset,
        network,
        price: usdPriceFromScaled(answer, -decimals),
        provider: this.name,
        observedAt: new Date(Number(updatedAt) * 1000),
      };
    } catch (e) {
      if (e instanceof InvalidPrice) throw new QuoteFailure(this.name, e.reason, `feed ${feed}: ${e.message}`);
      throw e;
    }
  }

  private client(network: Network): PublicClient {
    let client = this.clients.get(network);
    if (!client) {
      client = createPublicClient({ transport: rpcTransport(this.options.rpcUrls[network]!, { timeout: this.options.timeoutMs ?? 10_000, retryCount: 0 }) });
      this.clients.set(network, client);
    }
    return client;
  }

  /** A feed's decimals never change: read once. */
  private async feedDecimals(client: PublicClient, network: Network, feed: Address): Promise<number> {
    const key = `${network}:${feed.toLowerCase()}`;
    const known = this.decimals.get(key);
    if (known !== undefined) return known;
    const decimals = await client.readContract({ address: feed, abi: AGGREGATOR_V3_ABI, functionName: 'decimals' });
    this.decimals.set(key, decimals);
    return decimals;
  }
}

function abortable<T>(work: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return work;
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(new Error('aborted'));
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

function firstLine(e: unknown): string {
  return String((e as Error)?.message ?? e).split('\n')[0]!;
}
