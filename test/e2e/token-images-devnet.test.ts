/**
 * Token images on the embedded devnet, paid with the official x402 client (issue 39): a PNG
 * uploaded with a token comes back from its URL as WebP with immutable caching and an ETag; the
 * same bytes uploaded twice are stored once; an SVG, a text file named .png, a 5 MB image and a
 * decompression bomb are refused with their codes and charge nothing; token_image by another
 * wallet than the creator is refused before its 402. Then the page in Chromium shows the image on
 * the feed's card and the token's page (screenshots in test-artifacts/page/).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import type { PrivateKeyAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startService, type RunningService } from '../../src/bootstrap/compose.js';
import { PRODUCTION, TESTNET } from '../../src/domain/network.js';
import { injectWallet, launchBrowser, screenshot } from '../support/browser.js';
import { devnetTools } from '../support/devnet.js';
import { bombPng, dataUrl, noisePng, pngFixture, SVG, TEXT_AS_PNG } from '../support/images.js';
import { queryDatabase } from '../support/service-process.js';
import { devnetConfig, json } from '../support/service.js';
import { waitFor } from '../support/wait.js';
import { devAccount, payingFetch } from '../support/x402-client.js';

const dataDir = mkdtempSync(join(tmpdir(), 'launchpad-images-'));
const [creator, other] = [devAccount(5), devAccount(6)];
let service: RunningService;
let png: Buffer;

beforeAll(async () => {
  service = await startService(await devnetConfig(dataDir));
  png = await pngFixture(640, 480);
}, 120_000);

afterAll(async () => {
  await service?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

const post = (account: PrivateKeyAccount, path: string, body: unknown, pay = true) =>
  (pay ? payingFetch(account) : fetch)(`${service.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-wallet-address': account.address },
    body: JSON.stringify(body),
  });

const balance = (account: PrivateKeyAccount) => devnetTools(service.devnet!).usdcBalance(TESTNET, account.address);
const imageRows = async () => (await queryDatabase<{ n: number }>(`sqlite:${join(dataDir, 'service.db')}`, 'select count(*) as n from images'))[0]!.n;

describe('token images on the devnet', () => {
  it('a PNG uploaded with a token comes back from its URL as WebP, cached for ever, with an ETag; the same bytes twice are stored once', async () => {
    const created = await post(creator, '/tokens', { name: 'Picture Coin', symbol: 'PIC', image: dataUrl(png) });
    expect(created.status).toBe(201);
    expect(created.headers.get('payment-response')).toBeTruthy();
    const token = (await json(created)).data;
    expect(token.imageUrl).toMatch(new RegExp(`^${service.url}/images/[0-9a-f]{64}\\.webp$`));

    const image = await fetch(token.imageUrl);
    expect(image.status).toBe(200);
    expect(image.headers.get('content-type')).toBe('image/webp');
    expect(image.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(image.headers.get('x-content-type-options')).toBe('nosniff');
    const etag = image.headers.get('etag')!;
    const bytes = Buffer.from(await image.arrayBuffer());
    expect(etag).toBe(`"${token.imageUrl.split('/').pop().split('.')[0]}"`);
    expect(await sharp(bytes).metadata()).toMatchObject({ format: 'webp', width: 512, height: 384 });
    expect((await fetch(token.imageUrl, { headers: { 'if-none-match': etag } })).status).toBe(304);
    expect(await sharp(Buffer.from(await (await fetch(token.thumbnailUrl)).arrayBuffer())).metadata()).toMatchObject({ width: 128, height: 128 });

    // Named wherever the token is: its page's read, the feed, its metadata document.
    expect((await json(await fetch(`${service.url}/tokens/${token.tokenId}`))).data.imageUrl).toBe(token.imageUrl);
    expect((await json(await fetch(`${service.url}/tokens?limit=5`))).data.items.find((t: { tokenId: string }) => t.tokenId === token.tokenId).thumbnailUrl).toBe(token.thumbnailUrl);
    expect((await json(await fetch(`${service.url}/api/tokens/${token.tokenId}/metadata.json`))).image).toBe(token.imageUrl);

    const rows = await imageRows();
    const again = await post(creator, '/tokens', { name: 'Picture Coin Two', symbol: 'PIC2', image: png.toString('base64') });
    expect(again.status).toBe(201);
    expect((await json(again)).data).toMatchObject({ imageUrl: token.imageUrl, thumbnailUrl: token.thumbnailUrl });
    expect(await imageRows()).toBe(rows);
  });

  it('an SVG, a text file named .png, a 5 MB image and a decompression bomb are refused with their codes, and charge nothing', async () => {
    const before = await balance(creator);
    const five = await noisePng(1300, 1300);
    expect(five.length).toBeGreaterThan(5_000_000);
    for (const [bytes, status, code] of [
      [SVG, 415, 'IMAGE_SVG_REFUSED'],
      [TEXT_AS_PNG, 415, 'IMAGE_TYPE_UNSUPPORTED'],
      [await bombPng(), 413, 'IMAGE_TOO_MANY_PIXELS'],
      // 6.7 MB of JSON: the body's own limit (1.5 MiB for an operation that takes an image).
      [five, 413, 'PAYLOAD_TOO_LARGE'],
    ] as const) {
      const res = await post(creator, '/tokens', { name: 'Refused', symbol: 'NO', image: dataUrl(Buffer.from(bytes)) });
      expect([res.status, (await json(res)).error.code]).toEqual([status, code]);
      expect(res.headers.get('payment-response')).toBeNull();
    }
    // Just over 1 MiB, inside the body limit: the image's own code.
    const over = Buffer.concat([png, Buffer.alloc(1024 * 1024 - png.length + 1)]);
    const res = await post(creator, '/tokens', { name: 'Refused', symbol: 'NO', image: dataUrl(over) });
    expect([res.status, (await json(res)).error.code]).toEqual([413, 'IMAGE_TOO_LARGE']);
    expect(await balance(creator)).toBe(before);
  });

  it('token_image: refused before its 402 for a wallet that is not the creator; the creator changes it, paying', async () => {
    const token = (await json(await post(creator, '/tokens', { name: 'Changing', symbol: 'CHG', image: dataUrl(png) }))).data;
    const next = dataUrl(await pngFixture(300, 300));
    const before = await balance(other);
    const refused = await post(other, '/entrypoints/token_image', { tokenId: token.tokenId, image: next });
    expect([refused.status, (await json(refused)).error.code]).toEqual([403, 'NOT_TOKEN_CREATOR']);
    expect(await balance(other)).toBe(before);

    const unpaid = await post(creator, '/entrypoints/token_image', { tokenId: token.tokenId, image: next }, false);
    expect(unpaid.status).toBe(402);
    const changed = await post(creator, '/entrypoints/token_image', { tokenId: token.tokenId, image: next });
    expect(changed.status).toBe(200);
    const view = (await json(changed)).data;
    expect(view.imageUrl).not.toBe(token.imageUrl);
    expect((await json(await fetch(`${service.url}/tokens/${token.tokenId}`))).data.imageUrl).toBe(view.imageUrl);
    expect(await sharp(Buffer.from(await (await fetch(view.imageUrl)).arrayBuffer())).metadata()).toMatchObject({ width: 300, height: 300 });
  });

  it('the page shows the thumbnail on the feed card and the image on the token page; the create form previews a picked file', async () => {
    // A picture one can recognise in the screenshots: a sun over a sea.
    const art = await sharp(
      Buffer.from(
        '<svg xmlns="http://www.w3.org/2000/svg" width="600" height="600"><rect width="600" height="600" fill="#1e3a8a"/><rect y="380" width="600" height="220" fill="#0ea5e9"/><circle cx="300" cy="300" r="140" fill="#facc15"/></svg>',
      ),
    )
      .png()
      .toBuffer();
    const token = (await json(await post(creator, '/tokens', { name: 'Sunrise', symbol: 'SUN', image: dataUrl(art) }))).data;
    const browser = await launchBrowser();
    try {
      const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, colorScheme: 'dark' });
      const rpc = service.devnet!.chains;
      await injectWallet(context, creator, { 8453: rpc[PRODUCTION].rpcUrl, 84532: rpc[TESTNET].rpcUrl }, 84532);
      const page = await context.newPage();
      page.on('pageerror', (e) => console.error(`page error: ${e.message}`));
      /** The image once the browser decoded it: its natural width (0 while loading or broken). */
      const loaded = async (selector: string) => {
        const img = page.locator(selector);
        const width = await waitFor(`${selector} loaded`, () => img.evaluate((el: any) => (el.complete ? el.naturalWidth : 0)).catch(() => 0), { stepMs: 100 });
        return { width, src: await img.getAttribute('src') };
      };

      await page.goto(`${service.url}/`);
      expect(await loaded(`#card-${token.tokenId} img.avatar`)).toEqual({ width: 128, src: token.thumbnailUrl });
      await screenshot(page, 'images-feed', false);

      await page.goto(`${service.url}/#/token/${token.tokenId}`);
      expect(await loaded('img.avatar.large')).toEqual({ width: 512, src: token.imageUrl });
      await screenshot(page, 'images-token', false);

      await page.goto(`${service.url}/#/create`);
      await page.getByRole('button', { name: 'Connect wallet to create' }).click();
      await page.getByLabel('Image').setInputFiles({ name: 'sunrise.png', mimeType: 'image/png', buffer: art });
      expect((await loaded('img.preview')).width).toBe(600);
      await screenshot(page, 'images-create', false);
    } finally {
      await browser.close();
    }
  }, 120_000);
});
