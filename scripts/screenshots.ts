/**
 * npm run screenshots — the README's pictures of the page (docs/images/page-*.png), made from a
 * real run (decision 0077): a service on its own embedded devnet, in a fresh data directory, as
 * `npm start` runs it (workers on their timers; only the anti-snipe launch fee is off, so the
 * trades show the base fee); demo data made through the paid API with the devnet's public demo
 * wallets — eight tokens with images, buys and a sell over four minutes, comments and a reply, a
 * limit buy, a fair launch raising — and the page driven in Debian's Chromium (CHROMIUM names another),
 * in the light theme the page opens with, a demo wallet connected:
 *
 *   page-feed.png      the feed at 1280 px
 *   page-token.png     a token's page: chart, comments, trades, the trade panel and its orders
 *   page-wallet.png    the wallet's page: USDC, positions, open orders, pledges
 *   page-phone.png     a token's page at 390 px, from its trade panel down
 *
 *   npm run screenshots [-- <dir>]    (docs/images by default; about five minutes)
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import sharp from 'sharp';
import type { Page } from 'playwright-core';
import type { PrivateKeyAccount } from 'viem/accounts';
import { startService } from '../src/bootstrap/compose.js';
import { loadConfig } from '../src/bootstrap/config/config.js';
import { devnetRpcUrls, launchBrowser, openPage } from '../test/support/browser.js';
import { freePorts } from '../test/support/free-ports.js';
import { signedSellBody } from '../test/support/onchain.js';
import { devAccount, payingFetch } from '../test/support/x402-client.js';
import { commandLine, usageError } from './command-line.js';

const USAGE = 'usage: npm run screenshots [-- <dir>]   (docs/images by default)';
const { positionals } = commandLine(USAGE, { allowPositionals: true });
if (positionals.length > 1) usageError(USAGE, `one directory at most, not ${positionals.length}`);
const out = resolve(positionals[0] ?? 'docs/images');

const dataDir = mkdtempSync(join(tmpdir(), 'launchpad-screenshots-'));
const config = loadConfig({ DATA_DIR: dataDir, PORT: '0', DEVNET_PORT: String(await freePorts()), LOG_LEVEL: 'warn', RATE_LIMIT_FREE_PER_MINUTE: '0', LAUNCH_FEE_DECAY_SECONDS: '0' });
const service = await startService(config);
const [creator, alice, person, bob] = [devAccount(5), devAccount(6), devAccount(7), devAccount(8)];
const step = (what: string) => console.log(`screenshots: ${what}`);

async function call(method: 'GET' | 'POST', path: string, body?: unknown, account?: PrivateKeyAccount) {
  const send = account ? payingFetch(account) : fetch;
  const res = await send(`${service.url}${path}`, { method, headers: { 'content-type': 'application/json', ...(account ? { 'x-wallet-address': account.address } : {}) }, ...(body ? { body: JSON.stringify(body) } : {}) });
  const answer = (await res.json()) as { success: boolean; data: any; error?: unknown };
  if (!answer.success) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(answer.error)}`);
  return answer.data;
}
const paid = (account: PrivateKeyAccount, path: string, body: unknown) => call('POST', path, body, account);
const until = async (what: string, check: () => Promise<boolean>) => {
  for (const deadline = Date.now() + 60_000; !(await check()); ) {
    if (Date.now() > deadline) throw new Error(`screenshots: ${what} did not happen within a minute`);
    await new Promise((r) => setTimeout(r, 300));
  }
};

/** A token's picture: a gradient and a mark of its own, drawn as SVG and uploaded as the PNG a person would pick. */
function picture(from: string, to: string, mark: string): Promise<string> {
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="512" height="512"><defs><linearGradient id="g" x1="0" y1="0" x2="1" y2="1"><stop offset="0" stop-color="${from}"/><stop offset="1" stop-color="${to}"/></linearGradient></defs><rect width="512" height="512" fill="url(#g)"/><circle cx="380" cy="130" r="70" fill="#ffffff" fill-opacity="0.25"/><circle cx="120" cy="400" r="110" fill="#000000" fill-opacity="0.12"/>${mark}</svg>`;
  return sharp(Buffer.from(svg)).png().toBuffer().then((png) => `data:image/png;base64,${png.toString('base64')}`);
}
const CAT = '<path d="M150 360 L150 190 L205 245 L307 245 L362 190 L362 360 Q256 430 150 360 Z" fill="#fff"/><circle cx="215" cy="300" r="16" fill="#1e1b4b"/><circle cx="297" cy="300" r="16" fill="#1e1b4b"/>';
const SUN = '<circle cx="256" cy="256" r="95" fill="#fff"/><g stroke="#fff" stroke-width="22" stroke-linecap="round"><line x1="256" y1="70" x2="256" y2="120"/><line x1="256" y1="392" x2="256" y2="442"/><line x1="70" y1="256" x2="120" y2="256"/><line x1="392" y1="256" x2="442" y2="256"/></g>';
const WAVE = '<path d="M60 300 Q150 200 240 300 T420 300 L452 452 L60 452 Z" fill="#fff" fill-opacity="0.9"/>';
const LEAF = '<path d="M140 380 Q140 150 380 130 Q370 370 140 380 Z" fill="#fff"/><path d="M150 370 L330 190" stroke="#14532d" stroke-width="12"/>';

/** A signed held authorization (an order's or a pledge's), as the wallet signs what the service serves. */
async function signedHeld(account: PrivateKeyAccount, served: { typedData: any; authorization: Record<string, string> }) {
  const { typedData } = served;
  const m = typedData.message;
  const signature = await account.signTypedData({ domain: typedData.domain, types: typedData.types, primaryType: typedData.primaryType, message: { ...m, value: BigInt(m.value), validAfter: BigInt(m.validAfter), validBefore: BigInt(m.validBefore) } });
  return { ...served.authorization, signature };
}

/** The next minute's start: trades on either side of it make candles of their own. */
const nextMinute = () => new Promise((r) => setTimeout(r, 60_000 - (Date.now() % 60_000) + 500));

/** Tokens a feed holds besides the ones traded below: older, quieter, each with its picture. */
const QUIET: [string, string, string, string, string][] = [
  ['Night Owl', 'NOWL', '#1e3a8a', '#7c3aed', '<circle cx="190" cy="250" r="60" fill="#fff"/><circle cx="322" cy="250" r="60" fill="#fff"/><circle cx="190" cy="250" r="24" fill="#1e1b4b"/><circle cx="322" cy="250" r="24" fill="#1e1b4b"/>'],
  ['Pixel Frog', 'PFROG', '#84cc16', '#15803d', '<rect x="150" y="190" width="212" height="150" rx="20" fill="#fff"/><rect x="190" y="230" width="40" height="40" fill="#14532d"/><rect x="282" y="230" width="40" height="40" fill="#14532d"/>'],
  ['Rocket Fuel', 'FUEL', '#f97316', '#7f1d1d', '<path d="M256 90 L330 300 L256 270 L182 300 Z" fill="#fff"/><path d="M226 310 L256 420 L286 310 Z" fill="#fde047"/>'],
  ['Ice Bear', 'BEAR', '#38bdf8', '#1e40af', '<g stroke="#fff" stroke-width="20" stroke-linecap="round"><line x1="256" y1="110" x2="256" y2="402"/><line x1="130" y1="183" x2="382" y2="329"/><line x1="130" y1="329" x2="382" y2="183"/></g>'],
];

async function demoData() {
  step('launching eight tokens with images, one of them a fair launch');
  for (const [name, symbol, from, to, mark] of QUIET) {
    const t = await paid(bob, '/tokens', { name, symbol, image: await picture(from, to, mark) });
    await paid(alice, '/entrypoints/token_buy_usd', { tokenId: t.tokenId, usdAmount: String(symbol.length + 1) });
  }
  const sdog = await paid(creator, '/tokens', { name: 'Solar Dog', symbol: 'SDOG', description: 'Powered by sunshine.', image: await picture('#f59e0b', '#ef4444', SUN) });
  const wave = await paid(alice, '/tokens', { name: 'Tidal Wave', symbol: 'WAVE', image: await picture('#0ea5e9', '#14b8a6', WAVE) });
  const leaf = await paid(bob, '/tokens', { name: 'Green Leaf', symbol: 'LEAF', description: 'A fair launch: everyone pays one price.', image: await picture('#22c55e', '#065f46', LEAF), launch: { mode: 'fair', goalUsd: '250', durationSeconds: 6 * 3600, maxPerWalletUsd: '50' } });
  const mcat = await paid(creator, '/tokens', { name: 'Moon Cat', symbol: 'MCAT', description: 'A cat that only buys the dip. Launched by the devnet’s demo wallet #5.', website: 'https://example.com', twitter: '@mooncat', image: await picture('#6366f1', '#ec4899', CAT), initialBuyUsd: '5' });
  step('trading them over four minutes (one-minute candles)');
  const buy = (account: PrivateKeyAccount, tokenId: string, usdAmount: string) => paid(account, '/entrypoints/token_buy_usd', { tokenId, usdAmount });
  await buy(alice, mcat.tokenId, '40');
  await buy(bob, sdog.tokenId, '12');
  await nextMinute();
  await buy(person, mcat.tokenId, '15');
  await buy(alice, wave.tokenId, '8');
  await nextMinute();
  await buy(bob, mcat.tokenId, '25');
  await until('the buys delivered', async () => (await call('GET', `/positions?wallet=${alice.address}&network=eip155:84532`)).items.every((p: any) => p.onChainBalance === p.balance));
  const held = (await call('GET', `/positions?wallet=${alice.address}&network=eip155:84532`)).items.find((p: any) => p.tokenId === mcat.tokenId);
  const third = (BigInt(held.balance.split('.')[0]) / 3n).toString();
  await paid(alice, '/entrypoints/token_sell', await signedSellBody(service.url, alice, mcat.tokenId, third));
  await nextMinute();
  await buy(person, mcat.tokenId, '10');
  await buy(bob, sdog.tokenId, '6');
  await buy(alice, mcat.tokenId, '18');
  step('comments, an order and pledges');
  const first = await paid(alice, '/entrypoints/token_comment', { tokenId: mcat.tokenId, text: 'Bought at the bottom of the first candle. Meow.' });
  await paid(person, '/entrypoints/token_comment', { tokenId: mcat.tokenId, text: 'Same here — a limit buy is waiting lower down.', replyTo: first.commentId });
  await paid(bob, '/entrypoints/token_comment', { tokenId: mcat.tokenId, text: 'Chart looks healthy. What is the roadmap?' });
  const spot = Number((await call('GET', `/tokens/${mcat.tokenId}`)).priceUsd);
  const expiresAt = new Date(Date.now() + 7 * 86_400_000).toISOString();
  const order = await call('GET', `/api/orders/authorization?wallet=${person.address}&tokenId=${mcat.tokenId}&kind=limit_buy&usdAmount=20&expiresAt=${expiresAt}`);
  await paid(person, '/entrypoints/order_place', { tokenId: mcat.tokenId, kind: 'limit_buy', usdAmount: '20', triggerPriceUsd: (spot * 0.85).toPrecision(4), expiresAt, authorization: await signedHeld(person, order) });
  for (const [account, usd] of [[alice, '40'], [person, '25'], [bob, '30']] as const) {
    const served = await call('GET', `/api/tokens/${leaf.tokenId}/pledge-authorization?wallet=${account.address}&usdAmount=${usd}`);
    await paid(account, '/entrypoints/token_pledge', { tokenId: leaf.tokenId, usdAmount: usd, authorization: await signedHeld(account, served) });
  }
  await nextMinute();
  await buy(bob, mcat.tokenId, '9');
  return { mcat };
}

/** Waits until every image on the page has loaded and the chart has drawn, then writes the picture. */
async function shoot(page: Page, name: string, fullPage: boolean, clip?: { x: number; y: number; width: number; height: number }) {
  await until(`${name}: images loaded`, () => page.evaluate(`[...document.images].every((i) => i.complete && (i.hidden || i.naturalWidth > 0))`) as Promise<boolean>);
  await page.evaluate('window.scrollTo(0, 0)');
  await page.screenshot({ path: join(out, `${name}.png`), fullPage, ...(clip ? { clip } : {}) });
  step(`wrote ${join(out, `${name}.png`)}`);
}

try {
  await service.warmPage();
  const { mcat } = await demoData();
  mkdirSync(out, { recursive: true });
  const browser = await launchBrowser();
  try {
    const { context, page } = await openPage(browser, { account: person, rpcUrls: devnetRpcUrls(service.devnet!.chains), viewport: { width: 1280, height: 860 }, colorScheme: 'light' });
    await page.goto(`${service.url}/`);
    await page.getByRole('banner').getByRole('button', { name: 'Connect wallet' }).click();
    await page.getByTestId('connected').waitFor();
    await page.getByTestId('card-pledged').waitFor();
    await shoot(page, 'page-feed', false);
    await page.goto(`${service.url}/#/token/${mcat.tokenId}`);
    await page.locator('[data-testid="open-orders"] [data-order-id]').waitFor();
    await page.locator('.comment-text').nth(2).waitFor();
    await page.locator('[data-testid="trades"] tr[data-trade-id]').nth(5).waitFor();
    await until('the chart drawn', () => page.evaluate(`document.querySelectorAll('[data-testid="chart"] canvas').length > 0`) as Promise<boolean>);
    await shoot(page, 'page-token', true);
    await page.goto(`${service.url}/#/wallet`);
    await page.getByTestId('wallet-pledges').waitFor();
    await shoot(page, 'page-wallet', true);
    // A phone: the token's page from its trade panel down, one screen of it.
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(`${service.url}/#/token/${mcat.tokenId}`);
    await page.locator('[data-testid="open-orders"] [data-order-id]').waitFor();
    const trade = (await page.getByRole('heading', { name: 'Trade', exact: true }).boundingBox())!;
    await shoot(page, 'page-phone', true, { x: 0, y: trade.y - 28, width: 390, height: 844 });
    await context.close();
  } finally {
    await browser.close();
  }
} finally {
  await service.stop();
  rmSync(dataDir, { recursive: true, force: true });
}
