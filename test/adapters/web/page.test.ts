/**
 * The page as the service serves it (docs/decisions/0030): built by esbuild in memory, the HTML
 * revalidated, the hashed assets cached for a year and compressed, the API's own paths unchanged;
 * and the numbers the page shows, rounded from the exact strings without floats.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'node:http';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { changeSinceLaunch, compact, grouped, percentText, roundTo, shortId, timeLeft, triggerFrom, usdText } from '../../../src/adapters/web/browser/format.js';
import { buildPage, readPageFiles, writePageFiles, type PageFiles } from '../../../src/adapters/web/esbuild/page-files.js';
import type { RunningService } from '../../../src/bootstrap/compose.js';
import { json, startTestService } from '../../support/service.js';

describe('numbers for people', () => {
  it('rounds half up on the digits, compacts thousands and keeps four significant digits below 1', () => {
    expect(compact('5591.798695')).toBe('5.59K');
    expect(compact('884495.291384607698648614')).toBe('884.5K');
    expect(compact('793100000')).toBe('793.1M');
    expect(compact('999999.999')).toBe('1M');
    expect(compact('1234.5')).toBe('1.23K');
    expect(compact('12.345')).toBe('12.35');
    expect(compact('0.000005591798695246')).toBe('0.000005592');
    expect(compact('0.00009999999')).toBe('0.0001');
    expect(compact('0')).toBe('0');
    expect(compact('-0.045917')).toBe('−0.04592');
    expect(usdText('5')).toBe('$5');
    expect(usdText('-0.005001')).toBe('−$0.005001');
    expect(percentText('0.4213')).toBe('42.13%');
    expect(percentText('1')).toBe('100%');
    expect(percentText('0.000126')).toBe('0.01%');
  });

  it('writes an amount out for a sentence: grouped, two decimals, never eighteen', () => {
    expect(grouped('176121.752847254856499615')).toBe('176,121.75');
    expect(grouped('1234567')).toBe('1,234,567');
    expect(grouped('0.000005591798695246')).toBe('0.000005592');
    expect(roundTo('0.000005620186455538', 9)).toBe('0.00000562');
    expect(roundTo('12.995', 2)).toBe('13');
  });

  it("starts an order's trigger below the price for a limit buy or a stop-loss and above it for a take-profit, at the chart's precision", () => {
    const spot = '0.000005620186455538';
    expect(triggerFrom(spot, -10, 9)).toBe('0.000005058');
    expect(triggerFrom(spot, 10, 9)).toBe('0.000006182');
    expect(triggerFrom('1.5', -10, 2)).toBe('1.35');
  });
});

/** A plain HTTP GET, as a browser's cache sends it (fetch() adds Cache-Control: no-cache to a conditional request, and decodes gzip). */
function rawGet(url: string, headers: Record<string, string>): Promise<{ status: number; body: Buffer }> {
  return new Promise((resolve, reject) => {
    request(url, { headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c)).on('end', () => resolve({ status: res.statusCode!, body: Buffer.concat(chunks) }));
    })
      .on('error', reject)
      .end();
  });
}

describe('what a feed card says', () => {
  const curve = { virtualUsdReserve: '6000', virtualTokenReserve: '1073000000', realUsdReserve: '0', tokensSold: '0' };
  it('the change since launch, from the reserves alone: none at launch, up after a buy, none once graduated', () => {
    expect(changeSinceLaunch({ state: 'ACTIVE', priceUsd: (6000 / 1073000000).toFixed(18), curve })).toBe('0.000000');
    // $60 into the curve: x = 6060, y = k / x; the price x / y is (6060 / 6000)^2 of the launch price.
    const y = (6000 * 1073000000) / 6060;
    const after = { virtualUsdReserve: '6060', virtualTokenReserve: String(y), realUsdReserve: '60', tokensSold: String(1073000000 - y) };
    expect(Number(changeSinceLaunch({ state: 'ACTIVE', priceUsd: String(6060 / y), curve: after }))).toBeCloseTo((6060 / 6000) ** 2 - 1, 5);
    expect(changeSinceLaunch({ state: 'GRADUATED', priceUsd: '0.001', curve })).toBeNull();
  });

  it("a raise's time left, in the unit that matters", () => {
    const now = Date.parse('2026-01-01T00:00:00Z');
    const at = (s: number) => new Date(now + s * 1000).toISOString();
    expect([timeLeft(at(45), now), timeLeft(at(300), now), timeLeft(at(8040), now), timeLeft(at(187_200), now), timeLeft(at(-5), now)]).toEqual(['45 s left', '5 min left', '2 h 14 min left', '2 d 4 h left', 'ended']);
  });

  it('a short id that tells apart two tokens with one symbol', () => {
    expect(shortId('tok_01M8DPDFTQR99T45S4TA1MPZH4')).toBe('tok_…1MPZH4');
  });
});

describe('serving the page', () => {
  let service: RunningService;
  let built: PageFiles;
  beforeAll(async () => {
    service = await startTestService();
    built = await buildPage();
  }, 60_000);
  afterAll(() => service.stop());

  it('GET / is the page, revalidated by its ETag, under a content security policy; the API paths are unchanged', async () => {
    const res = await fetch(`${service.url}/`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(res.headers.get('cache-control')).toBe('no-cache');
    expect(res.headers.get('content-security-policy')).toContain("script-src 'self'");
    const html = await res.text();
    expect(html).toMatch(/<script type="module" src="\/assets\/app-[A-Z0-9]+\.js"><\/script>/);
    // The page knows its chains: on the embedded devnet's defaults, no contract gets a public explorer link.
    expect(html).toContain('<meta name="launchpad-chain" content="devnet" />');
    const again = await rawGet(`${service.url}/`, { 'if-none-match': res.headers.get('etag')! });
    expect(again.status).toBe(304);
    expect(again.body.length).toBe(0);
    expect((await json(await fetch(`${service.url}/tokens`))).operation).toBe('list_tokens');
    expect((await json(await fetch(`${service.url}/index.html`))).error.code).toBe('NOT_FOUND');
    expect((await fetch(`${service.url}/`, { method: 'POST' })).status).toBe(405);
  });

  it('the assets the page names are served compressed and cached for a year', async () => {
    const html = await (await fetch(`${service.url}/`)).text();
    for (const path of [...html.matchAll(/(?:src|href)="(\/assets\/[^"]+)"/g)].map((m) => m[1]!)) {
      const res = await fetch(`${service.url}${path}`, { headers: { 'accept-encoding': 'gzip' } });
      expect(res.status, path).toBe(200);
      expect(res.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
      expect(res.headers.get('content-type')).toMatch(path.endsWith('.js') ? /^text\/javascript/ : /^text\/css/);
      const raw = Buffer.from(await (await fetch(`${service.url}${path}`, { headers: { 'accept-encoding': 'identity' } })).arrayBuffer());
      expect(raw.equals(built.get(path)!.body)).toBe(true);
      const br = await fetch(`${service.url}${path}`, { headers: { 'accept-encoding': 'br, gzip' } });
      expect(br.headers.get('content-encoding')).toBe('br');
    }
    // gzip for a client that takes only gzip.
    const path = [...built.keys()].find((p) => p.endsWith('.js'))!;
    const { body } = await rawGet(`${service.url}${path}`, { 'accept-encoding': 'gzip' });
    expect(gunzipSync(body).equals(built.get(path)!.body)).toBe(true);
    expect((await fetch(`${service.url}/assets/app-NOPE.js`)).status).toBe(404);
  });

  it('npm run build:web writes what a compiled service reads back, byte for byte', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'launchpad-web-'));
    try {
      await writePageFiles(built, dir);
      const read = await readPageFiles(dir);
      expect([...read.keys()].sort()).toEqual([...built.keys()].sort());
      for (const [path, file] of built) expect(read.get(path)!.body.equals(file.body), path).toBe(true);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
