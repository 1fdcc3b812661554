/**
 * What only the network-detection adapters do (the port's behaviour is
 * test/contract/network-detector.contract.ts): ViemNetworkDetector against misbehaving JSON-RPC
 * endpoints (nock), and CachingNetworkDetector's TTLs, LRU bound and coalescing, on the devnet and
 * over counting detectors.
 */
import nock from 'nock';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { devnetAccount } from '../../../src/adapters/chain/anvil/devnet-constants.js';
import { CachingNetworkDetector } from '../../../src/adapters/network/caching/caching-network-detector.js';
import { ViemNetworkDetector } from '../../../src/adapters/network/viem/viem-network-detector.js';
import { FakeClock } from '../../../src/adapters/clock/fake/fake-clock.js';
import { PRODUCTION, TESTNET } from '../../../src/domain/network.js';
import type { Detection, NetworkDetector } from '../../../src/ports/network-detector.js';

import { TestDevnet } from '../../support/devnet.js';
import { freePorts } from '../../support/free-ports.js';
let devnet: TestDevnet;
const clock = new FakeClock('2026-11-23T00:00:00Z');

beforeAll(async () => {
  devnet = await TestDevnet.start({ port: await freePorts() });
}, 30_000);
afterAll(async () => {
  await devnet.stop();
});

describe('a testnet wallet that receives mainnet USDC', () => {
  it('becomes production once its cached testnet answer expires', async () => {
    const wallet = devnetAccount(9).address;
    const cached = new CachingNetworkDetector(new ViemNetworkDetector({ mainnetRpcUrls: [devnet.chains[PRODUCTION].rpcUrl], clock }), { clock });
    expect((await cached.detect(wallet)).network).toBe(TESTNET);
    await devnet.mint(PRODUCTION, wallet, 1_000_000n);
    expect((await cached.detect(wallet)).network).toBe(TESTNET); // still cached
    clock.advance(10 * 60_000 + 1);
    expect((await cached.detect(wallet)).network).toBe(PRODUCTION);
  });
});

describe('the cache', () => {
  class CountingDetector implements NetworkDetector {
    calls = 0;
    constructor(private readonly answer: Detection['network'], private readonly delayMs = 20) {}
    async detect(): Promise<Detection> {
      this.calls++;
      await new Promise((r) => setTimeout(r, this.delayMs));
      return { network: this.answer, reason: 'counted', checkedAt: clock.now() };
    }
  }

  it('coalesces 100 concurrent first requests for one wallet into one detection', async () => {
    const inner = new CountingDetector(TESTNET);
    const cached = new CachingNetworkDetector(inner, { clock });
    const results = await Promise.all(Array.from({ length: 100 }, () => cached.detect('0xAbC0000000000000000000000000000000000001')));
    expect(inner.calls).toBe(1);
    expect(new Set(results.map((r) => r.network))).toEqual(new Set([TESTNET]));
  });

  it('keeps production long and testnet ten minutes, and is bounded', async () => {
    const prod = new CountingDetector(PRODUCTION, 0);
    const cachedProd = new CachingNetworkDetector(prod, { clock, maxEntries: 2 });
    await cachedProd.detect('0x1');
    clock.advance(24 * 3_600_000);
    await cachedProd.detect('0x1');
    expect(prod.calls).toBe(1);
    await cachedProd.detect('0x2');
    await cachedProd.detect('0x3'); // evicts 0x1, the least recently used
    await cachedProd.detect('0x1');
    expect(prod.calls).toBe(4);

    const test = new CountingDetector(TESTNET, 0);
    const cachedTest = new CachingNetworkDetector(test, { clock });
    await cachedTest.detect('0x1');
    clock.advance(9 * 60_000);
    await cachedTest.detect('0x1');
    expect(test.calls).toBe(1);
    clock.advance(60_001);
    await cachedTest.detect('0x1');
    expect(test.calls).toBe(2);
  });

  it('does not cache failures', async () => {
    let fail = true;
    const cached = new CachingNetworkDetector(
      {
        detect: async () => {
          if (fail) throw new Error('rpc down');
          return { network: TESTNET, reason: 'ok', checkedAt: clock.now() };
        },
      },
      { clock },
    );
    await expect(cached.detect('0x1')).rejects.toThrow('rpc down');
    fail = false;
    expect((await cached.detect('0x1')).network).toBe(TESTNET);
  });
});

describe('misbehaving RPC endpoints (nock)', () => {
  const wallet = '0x9965507D1a55bcC2695C58ba16FB37d819B0A4dc';
  const rpc = (host: string) => `http://${host}`;
  afterEach(() => {
    nock.cleanAll();
    nock.enableNetConnect();
  });
  beforeAll(() => {
    nock.disableNetConnect();
    nock.enableNetConnect(/127\.0\.0\.1/);
  });

  /** A JSON-RPC server answering the detector's calls: no history at all (or, `transactions`, that many sent). */
  function healthy(host: string, { transactions = 0, silent = false } = {}) {
    return nock(rpc(host))
      .persist()
      .post('/')
      // nock 15 hands a reply function the request (a fetch Request), not its path and body. A
      // silent endpoint never answers (nock 15's .delay() answers after the caller gave up, which
      // undici asserts against in a later tick: an uncaught error in whatever test runs then).
      .reply(200, async (req: Request) => {
        if (silent) await new Promise(() => undefined);
        const body: unknown = await req.json();
        const calls = (Array.isArray(body) ? body : [body]) as { id: number; method: string }[];
        const answer = (c: { id: number; method: string }) => ({
          jsonrpc: '2.0',
          id: c.id,
          result:
            c.method === 'eth_getTransactionCount' ? `0x${transactions.toString(16)}`
            : c.method === 'eth_call' ? '0x' + '0'.repeat(64)
            : c.method === 'eth_blockNumber' ? '0x64'
            : c.method === 'eth_getLogs' ? []
            : c.method === 'eth_chainId' ? '0x2105'
            : null,
        });
        return Array.isArray(body) ? calls.map(answer) : answer(calls[0]!);
      });
  }

  const detector = (...hosts: string[]) =>
    new ViemNetworkDetector({ mainnetRpcUrls: hosts.map(rpc), clock, timeoutMs: 300 });

  it('answers from a healthy endpoint', async () => {
    healthy('rpc-ok.test');
    expect((await detector('rpc-ok.test').detect(wallet)).network).toBe(TESTNET);
  });

  it('falls back to the next endpoint when the first answers 429 or 5xx', async () => {
    nock(rpc('rpc-429.test')).persist().post('/').reply(429, 'slow down');
    nock(rpc('rpc-503.test')).persist().post('/').reply(503, 'down');
    healthy('rpc-backup.test');
    expect((await detector('rpc-429.test', 'rpc-backup.test').detect(wallet)).network).toBe(TESTNET);
    expect((await detector('rpc-503.test', 'rpc-backup.test').detect(wallet)).network).toBe(TESTNET);
  });

  it('falls back when the first endpoint times out', async () => {
    // The slow endpoint would say "production" (history) after 2 s; the backup says testnet at
    // once. Testnet is the fallback's answer, whatever time a loaded machine took to get it.
    healthy('rpc-slow.test', { transactions: 5, silent: true });
    healthy('rpc-backup.test');
    expect((await detector('rpc-slow.test', 'rpc-backup.test').detect(wallet)).network).toBe(TESTNET);
  });

  it('fails (never guesses) when every endpoint is broken or answers garbage', async () => {
    nock(rpc('rpc-garbage.test')).persist().post('/').reply(200, '<html>not json-rpc</html>');
    nock(rpc('rpc-error.test')).persist().post('/').reply(200, { jsonrpc: '2.0', id: 1, error: { code: -32000, message: 'boom' } });
    await expect(detector('rpc-garbage.test').detect(wallet)).rejects.toThrow();
    await expect(detector('rpc-error.test', 'rpc-garbage.test').detect(wallet)).rejects.toThrow();
  });
});
