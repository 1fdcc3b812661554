import { privateKeyToAddress } from 'viem/accounts';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/bootstrap/config/config.js';

const REAL = {
  RPC_URL_8453: 'https://base.example,https://backup.example',
  RPC_URL_84532: 'https://sepolia.example',
  PAY_TO_8453: '0x1111111111111111111111111111111111111111',
  PAY_TO_84532: '0x2222222222222222222222222222222222222222',
  TREASURY_KEY: `0x${'3'.repeat(64)}`,
  LAUNCH_FACTORY_8453: '0x4444444444444444444444444444444444444444',
  LAUNCH_FACTORY_84532: '0x5555555555555555555555555555555555555555',
};

describe('configuration', () => {
  it('runs on embedded defaults with nothing set', () => {
    const c = loadConfig({});
    expect(c).toMatchObject({ port: 3000, chain: 'devnet', databaseUrl: 'sqlite:data/service.db', rateLimitPerMinute: 100, workers: true });
    expect(c.settings.maxBuyUsd).toBe(10_000_000_000n);
  });

  it('reads real networks, with fallbacks, when every needed variable is given', () => {
    const c = loadConfig(REAL);
    expect(c.chain).toBe('rpc');
    expect(c.rpcUrls['eip155:8453']).toEqual(['https://base.example', 'https://backup.example']);
    expect(c.settings.payTo['eip155:84532']).toBe(REAL.PAY_TO_84532);
  });

  it('names the settlement key (else the treasury key) as the upto facilitator and the batch-settlement receiver authorizer', () => {
    const account = (key: string) => privateKeyToAddress(key as `0x${string}`);
    const settlementKey = `0x${'4'.repeat(64)}`;
    for (const [env, key] of [
      [REAL, REAL.TREASURY_KEY],
      [{ ...REAL, SETTLEMENT_KEY: settlementKey }, settlementKey],
    ] as const) {
      const { settings } = loadConfig(env);
      expect(settings.upto!.facilitatorAddress).toEqual({ 'eip155:8453': account(key), 'eip155:84532': account(key) });
      expect(settings.batchSettlement!.receiverAuthorizer['eip155:8453']).toBe(account(key));
    }
    // The devnet's: anvil's #0, its settlement key.
    expect(loadConfig({}).settings.upto!.facilitatorAddress['eip155:84532']).toBe('0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266');
  });

  it('reads PUBLIC_URL as an origin (unset: the request\'s own)', () => {
    expect(loadConfig({}).publicUrl).toBeUndefined();
    expect(loadConfig({ PUBLIC_URL: 'https://api.example.com/' }).publicUrl).toBe('https://api.example.com');
    expect(loadConfig({ PUBLIC_URL: 'http://127.0.0.1:3000' }).publicUrl).toBe('http://127.0.0.1:3000');
  });

  it('names the LaunchFactory of each real network', () => {
    expect(loadConfig({}).launchFactories).toEqual({ 'eip155:8453': undefined, 'eip155:84532': undefined });
    const factory = '0x4444444444444444444444444444444444444444';
    expect(loadConfig({ ...REAL, LAUNCH_FACTORY_8453: factory }).launchFactories['eip155:8453']).toBe(factory);
  });

  it("names Uniswap v2 per real network: Base defaults to Uniswap's published deployment", () => {
    const c = loadConfig(REAL);
    expect(c.uniswapV2['eip155:8453']).toEqual({ router: '0x4752ba5DBc23f44D87826276BF6Fd6b1C372aD24', factory: '0x8909Dc15e40173Ff4699343b6eB8132c65e18eC6' });
    expect(c.uniswapV2['eip155:84532']).toBeUndefined();
    const router = '0x6666666666666666666666666666666666666666';
    const factory = '0x7777777777777777777777777777777777777777';
    expect(loadConfig({ ...REAL, UNISWAP_V2_ROUTER_84532: router, UNISWAP_V2_FACTORY_84532: factory }).uniswapV2['eip155:84532']).toEqual({ router, factory });
    expect(loadConfig({ GRADUATION_FEE_USD: '12.5' }).settings.graduationFeeUsd).toBe(12_500_000n);
    expect(loadConfig({}).settings.graduationFeeUsd).toBe(0n);
  });

  it('calls a transaction dropped a block deep on the devnet, five with real RPCs, or as deep as told (decision 0056)', () => {
    expect(loadConfig({}).droppedAfterBlocks).toBe(1);
    expect(loadConfig(REAL).droppedAfterBlocks).toBe(5);
    expect(loadConfig({ ...REAL, DROPPED_AFTER_BLOCKS: '12' }).droppedAfterBlocks).toBe(12);
  });

  it.each([
    ['a Uniswap router without its factory', { ...REAL, UNISWAP_V2_ROUTER_84532: '0x6666666666666666666666666666666666666666' }],
    ['a Uniswap router that is not an address', { ...REAL, UNISWAP_V2_ROUTER_8453: '0x12', UNISWAP_V2_FACTORY_8453: '0x7777777777777777777777777777777777777777' }],
    ['a LaunchFactory that is not an address', { ...REAL, LAUNCH_FACTORY_84532: '0x1234' }],
    ['one network only', { ...REAL, RPC_URL_84532: undefined }],
    ['real networks without their LaunchFactory', { ...REAL, LAUNCH_FACTORY_84532: undefined }],
    ['real RPCs without a treasury of our own', { ...REAL, PAY_TO_8453: undefined }],
    ['real RPCs without a payout key', { ...REAL, TREASURY_KEY: undefined }],
    ['a bad port', { PORT: 'eighty' }],
    ['a negative fee', { FEE_BPS: '-1' }],
    ['an amount with too many decimals', { MAX_BUY_USD: '1.0000001' }],
    ['an unknown database', { DATABASE_URL: 'mysql://x' }],
    ['an inconsistent curve', { CURVE_SUPPLY: '2000000000' }],
    ['an unknown quote provider', { QUOTE_PROVIDERS: 'chainlink,binance' }],
    ['an empty quote provider list', { QUOTE_PROVIDERS: ' , ' }],
    ['a spread over 100 %', { QUOTE_MAX_SPREAD_BPS: '10001' }],
    ['a depeg floor above 1', { USDC_DEPEG_FLOOR: '1.01' }],
    ['a depeg floor that is not a price', { USDC_DEPEG_FLOOR: '-0.98' }],
    ['a provider limit without a window', { QUOTE_LIMIT_PYTH: '30' }],
    ['fixed prices of an unknown asset', { QUOTE_FIXED_PRICES: 'DAI=1' }],
    ['a public URL with a path', { PUBLIC_URL: 'https://api.example.com/v1' }],
    ['a public URL that is not http(s)', { PUBLIC_URL: 'ftp://api.example.com' }],
  ])('refuses %s, naming the problem', (_name, env) => {
    expect(() => loadConfig(env as Record<string, string>)).toThrow(ConfigError);
  });

  /** The message the service prints, one line per bad setting. */
  const refusal = (env: Record<string, string>) => {
    try {
      loadConfig(env);
    } catch (e) {
      if (e instanceof ConfigError) return e.message;
    }
    throw new Error('accepted');
  };

  it.each([
    [{ PORT: 'eighty' }, 'Invalid configuration: PORT is "eighty", but it must be a whole number from 0 to 65535.'],
    [{ PORT: '70000' }, 'Invalid configuration: PORT is "70000", but it must be a whole number from 0 to 65535.'],
    [{ PORT: '' }, 'Invalid configuration: PORT is "", but it must be a whole number from 0 to 65535 (unset it for 3000).'],
    [{ RATE_LIMIT_FREE_PER_MINUTE: '-5' }, 'Invalid configuration: RATE_LIMIT_FREE_PER_MINUTE is "-5", but it must be a whole number, at least 0.'],
    [{ LOG_LEVEL: 'loud' }, 'Invalid configuration: LOG_LEVEL is "loud", but it must be one of debug, info, warn, error, silent.'],
    [{ PAY_TO_8453: '0x12' }, 'Invalid configuration: PAY_TO_8453 is "0x12", but it must be a 0x address.'],
    [{ DROPPED_AFTER_BLOCKS: '0' }, 'Invalid configuration: DROPPED_AFTER_BLOCKS is "0", but it must be a whole number from 1 to 64.'],
    [{ CURVE_SUPPLY: '2000000000' }, 'Invalid configuration: CURVE_SUPPLY must be in (0, CURVE_TOTAL_SUPPLY]; CURVE_VIRTUAL_TOKENS must exceed CURVE_SUPPLY.'],
  ])('a bad setting is one sentence naming it: %o', (env, message) => {
    expect(refusal(env)).toBe(message);
  });

  it('names a bad secret or URL without repeating its value, and each bad setting once', () => {
    expect(refusal({ TREASURY_KEY: '0xsecret' })).toBe('Invalid configuration: TREASURY_KEY must be a 32-byte hex private key.');
    expect(refusal({ FACILITATOR_URL: 'not a url' })).toBe('Invalid configuration: FACILITATOR_URL must be a URL.');
    expect(refusal({ PORT: 'x', FEE_BPS: 'y' }).split('\n')).toEqual([
      'Invalid configuration: PORT is "x", but it must be a whole number from 0 to 65535.',
      'Invalid configuration: FEE_BPS is "y", but it must be a whole number from 0 to 9999.',
    ]);
  });

  it('prices through Chainlink on the devnet mock feeds plus fixed prices, by default', () => {
    const q = loadConfig({}).quotes;
    expect(q).toMatchObject({ providers: ['chainlink', 'fixed'], maxSpreadBps: 100n, cacheMs: 15_000, breaker: { failures: 3, openMs: 30_000 } });
    expect(q.limits.pyth).toEqual({ points: 30, durationSeconds: 10, maxQueueSize: 10 });
    expect(q.fixedPrices).toEqual({ USDC: { mantissa: 1n, scale: 0 }, EURC: { mantissa: 108n, scale: 2 } });
    expect(loadConfig({}).settings.usdcDepegFloor).toEqual({ mantissa: 98n, scale: 2 });
  });

  it('prices through every real source with real RPCs, each within its documented free tier', () => {
    const q = loadConfig(REAL).quotes;
    expect(q.providers).toEqual(['chainlink', 'coinbase', 'coingecko', 'pyth']);
    expect(q.limits.coinbase).toEqual({ points: 10_000, durationSeconds: 3_600, maxQueueSize: 10 });
    expect(q.limits.coingecko).toEqual({ points: 10, durationSeconds: 60, maxQueueSize: 5 });
    expect(loadConfig({ ...REAL, COINGECKO_API_KEY: 'demo' }).quotes.limits.coingecko.points).toBe(30);
  });

  it('reads the quote settings and per-source overrides', () => {
    const c = loadConfig({
      QUOTE_PROVIDERS: 'pyth, coinbase,pyth',
      QUOTE_MAX_SPREAD_BPS: '50',
      USDC_DEPEG_FLOOR: '0.995',
      QUOTE_LIMIT_PYTH: '10/10',
      QUOTE_LIMIT_COINBASE: '100/60/3',
      QUOTE_FIXED_PRICES: 'EURC=1.1, ETH=3000',
      PYTH_API_KEY: 'k',
    });
    expect(c.quotes).toMatchObject({ providers: ['pyth', 'coinbase'], maxSpreadBps: 50n, pythApiKey: 'k' });
    expect(c.quotes.limits.pyth).toEqual({ points: 10, durationSeconds: 10, maxQueueSize: 10 });
    expect(c.quotes.limits.coinbase).toEqual({ points: 100, durationSeconds: 60, maxQueueSize: 3 });
    expect(c.quotes.fixedPrices).toEqual({ EURC: { mantissa: 11n, scale: 1 }, ETH: { mantissa: 3000n, scale: 0 } });
    expect(c.settings.usdcDepegFloor).toEqual({ mantissa: 995n, scale: 3 });
  });
});
