/**
 * The page for people (docs/api.md "The page"), in a real headless Chromium against the service on
 * the embedded devnet, as `npm start` runs it (SQLite, workers on their timers): the feed lists
 * tokens made through the API and new ones live; a token page draws its chart and shows a trade
 * within 2 s without a reload; a person with a browser wallet creates a token, buys $1 and sells
 * half, and the chain holds exactly what the page showed; a refused payment shows its message; a
 * page on an allowed origin can pay through CORS and one on another origin cannot.
 */
import { createServer, type Server } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { erc20Abi, type Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startService, type RunningService } from '../../src/bootstrap/compose.js';
import { formatTokens, parseTokens, parseUsd } from '../../src/domain/money.js';
import { PRODUCTION, TESTNET } from '../../src/domain/network.js';
import { injectWallet, launchBrowser, screenshot } from '../support/browser.js';
import { devnetTools } from '../support/devnet.js';
import { freePorts } from '../support/free-ports.js';
import { devnetConfig, json } from '../support/service.js';
import { pollUntil, waitFor } from '../support/wait.js';
import { devAccount, payingFetch } from '../support/x402-client.js';

const dataDir = mkdtempSync(join(tmpdir(), 'launchpad-page-'));
let service: RunningService;
let browser: Browser;
const origins: { allowed: string; other: string; servers: Server[] } = { allowed: '', other: '', servers: [] };
const [apiCreator, apiTrader, person] = [devAccount(5), devAccount(6), devAccount(7)];

/** A blank page on its own origin: where a third-party app that calls the API would run. */
async function originServer(): Promise<{ url: string; server: Server }> {
  const port = await freePorts(1);
  const server = createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>another app</title>'));
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${port}`, server };
}

beforeAll(async () => {
  const [allowed, other] = await Promise.all([originServer(), originServer()]);
  Object.assign(origins, { allowed: allowed.url, other: other.url, servers: [allowed.server, other.server] });
  // As npm start runs: SQLite under DATA_DIR, the workers on their own timers, the system clock.
  const config = await devnetConfig(dataDir, { WORKERS: 'true', DEVNET_IDLE_BLOCK_SECONDS: '0', CORS_ORIGINS: allowed.url });
  [service, browser] = await Promise.all([startService(config), launchBrowser()]);
  await service.warmPage();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await service?.stop();
  for (const s of origins.servers) s.close();
  rmSync(dataDir, { recursive: true, force: true });
});

const api = (account: PrivateKeyAccount, path: string, body: unknown) =>
  payingFetch(account)(`${service.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-wallet-address': account.address },
    body: JSON.stringify(body),
  });

async function createToken(name: string, symbol: string): Promise<{ tokenId: string; address: Hex }> {
  const res = await api(apiCreator, '/tokens', { name, symbol, description: `${name}, launched through the API.` });
  expect(res.status).toBe(201);
  return (await json(res)).data;
}

async function buyThroughApi(tokenId: string, usdAmount: string) {
  const res = await api(apiTrader, '/entrypoints/token_buy_usd', { tokenId, usdAmount });
  expect(res.status).toBe(200);
  return (await json(res)).data;
}

/** A page with a wallet of its own (a fresh browser context per person). */
async function personPage(account: PrivateKeyAccount, viewport = { width: 1280, height: 900 }): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({ viewport, colorScheme: 'dark' });
  const rpc = service.devnet!.chains;
  await injectWallet(context, account, { 8453: rpc[PRODUCTION].rpcUrl, 84532: rpc[TESTNET].rpcUrl }, 84532);
  const page = await context.newPage();
  // The page's own errors end up in the test's output, where a failure is read.
  page.on('pageerror', (e) => console.error(`page error: ${e.message}`));
  page.on('console', (m) => m.type() === 'error' && !/status of 402/.test(m.text()) && console.error(`page console: ${m.text()}`));
  return { context, page };
}

const exact = async (page: Page, testId: string) => (await page.getByTestId(testId).getAttribute('data-exact'))!;
const tokenBalance = (token: Hex, wallet: Hex) => service.devnet!.publicClient(TESTNET).readContract({ address: token, abi: erc20Abi, functionName: 'balanceOf', args: [wallet] });
const usdc = (wallet: Hex) => devnetTools(service.devnet!).usdcBalance(TESTNET, wallet);

/** Whether a canvas of the chart has pixels of the up-candle colour (#22c55e): candles were drawn. */
const CANDLES_DRAWN = `(() => [...document.querySelectorAll('[data-testid="chart"] canvas')].some((c) => {
  if (!c.width || !c.height) return false;
  const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
  for (let i = 0; i < d.length; i += 4) if (Math.abs(d[i] - 34) < 6 && Math.abs(d[i + 1] - 197) < 6 && Math.abs(d[i + 2] - 94) < 6 && d[i + 3] > 200) return true;
  return false;
}))()`;

/**
 * Waits until `expression` is true in the page, polling from here: Playwright's waitForFunction
 * with a string polls through eval inside the page, which the page's content security policy
 * rightly forbids.
 */
async function until(page: Page, expression: string): Promise<void> {
  await waitFor(`${expression.slice(0, 80)}…`, () => page.evaluate(expression), { stepMs: 100 });
}

/**
 * Marks the page's window, and answers whether the mark is still there: it is not after a reload.
 * What "without a reload" means, whatever time the update took (a loaded machine's, not the page's).
 */
async function markWindow(page: Page): Promise<() => Promise<boolean>> {
  await page.evaluate('window.__notReloaded = true');
  return async () => (await page.evaluate('window.__notReloaded === true')) as boolean;
}

describe('the page in Chromium', () => {
  it('the feed lists tokens created through the API, and a new one appears without a reload', async () => {
    const first = await createToken('Moon Cat', 'MCAT');
    await createToken('Solar Dog', 'SDOG');
    await buyThroughApi(first.tokenId, '25');
    const { context, page } = await personPage(person);
    try {
      await page.goto(`${service.url}/`);
      const feed = page.getByTestId('feed');
      await feed.getByText('Moon Cat').waitFor();
      await feed.getByText('Solar Dog').waitFor();
      const same = await markWindow(page);
      const later = await createToken('Late Bird', 'LATE');
      await page.locator(`#card-${later.tokenId}`).waitFor();
      expect(await same()).toBe(true);
      expect(await page.title()).toBe('x402 launchpad');
      await screenshot(page, 'feed');
      // Keyboard: the first Tab reaches the skip link, which moves focus to the content and keeps the route.
      await page.keyboard.press('Tab');
      expect(await page.evaluate('document.activeElement.className')).toBe('skip');
      await page.keyboard.press('Enter');
      expect(await page.evaluate('document.activeElement.id')).toBe('main');
      await feed.getByText('Moon Cat').waitFor();
      // Search narrows the feed by name or symbol prefix.
      await page.getByLabel('Search').fill('sd');
      await page.locator(`#card-${first.tokenId}`).waitFor({ state: 'detached' });
      expect(await feed.getByText('Solar Dog').isVisible()).toBe(true);
      await page.getByLabel('Search').fill('');
      await page.locator(`#card-${first.tokenId}`).waitFor();
      // A card says the price and its change, the symbol first; a network filter narrows the feed.
      const card = page.locator(`#card-${first.tokenId}`);
      expect(await card.getByTestId('card-price').textContent()).toMatch(/^\$0\.0000/);
      expect(await card.getByTestId('card-change').textContent()).toMatch(/^\+[\d.]+% 24 h$/);
      expect(await card.locator('.symbol-strong').isVisible()).toBe(true);
      await page.getByRole('group', { name: 'Network' }).getByRole('button', { name: 'Base', exact: true }).click();
      await page.locator(`#card-${first.tokenId}`).waitFor({ state: 'detached' });
      await page.getByRole('group', { name: 'Network' }).getByRole('button', { name: 'All networks' }).click();
      await page.locator(`#card-${first.tokenId}`).waitFor();
      await page.setViewportSize({ width: 390, height: 844 });
      await screenshot(page, 'feed-390');
    } finally {
      await context.close();
    }
  }, 120_000);

  it('a token page draws the chart and shows a trade made through the API as its event arrives, without a reload; it fits a phone', async () => {
    const token = await createToken('Chart Fox', 'CFOX');
    await buyThroughApi(token.tokenId, '5');
    await buyThroughApi(token.tokenId, '12');
    const { context, page } = await personPage(person);
    try {
      await page.goto(`${service.url}/#/token/${token.tokenId}`);
      await page.getByRole('heading', { name: /Chart Fox/ }).waitFor();
      await until(page, CANDLES_DRAWN);
      await page.locator('[data-testid="trades"] tr[data-trade-id]').nth(1).waitFor();
      const same = await markWindow(page);
      const trade = (await buyThroughApi(token.tokenId, '3')).trade;
      // Committed when the API answers: the page learns of it from the event stream (it has no
      // timer of its own) — no reload, however long a loaded machine takes to show it.
      await page.locator(`[data-trade-id="${trade.tradeId}"]`).waitFor();
      expect(await same()).toBe(true);
      await page.getByTestId('contract-address').waitFor();
      await screenshot(page, 'token');
      // Reached by URL: at the top, "← All tokens" in view; a devnet contract has no public explorer link.
      expect(await page.evaluate('window.scrollY')).toBe(0);
      expect(await page.getByRole('link', { name: '← All tokens' }).isVisible()).toBe(true);
      expect(await page.locator('a[href*="basescan.org"]').count()).toBe(0);
      expect(await page.getByTestId('devnet-note').isVisible()).toBe(true);
      // The trades at their price without the fee, the same the chart plots; the fee beside it.
      const row = page.locator(`[data-trade-id="${trade.tradeId}"]`);
      expect(await row.getByTestId('trade-price').locator('[data-exact]').getAttribute('data-exact')).toBe(trade.executionPriceUsd);
      expect(trade.executionPriceUsd).not.toBe(trade.priceUsd);
      // Amounts are rounded for reading; one click shows the exact decimal string the API gave.
      const tokens = page.locator(`[data-trade-id="${trade.tradeId}"] .amount`).nth(3); // Price, USD, Fee, Tokens
      expect(await tokens.textContent()).not.toBe(trade.tokenAmount);
      await tokens.press('Enter'); // a button: the keyboard works as the click does
      expect(await tokens.textContent()).toBe(trade.tokenAmount);
      await tokens.click();
      expect(await tokens.textContent()).not.toBe(trade.tokenAmount);

      await page.setViewportSize({ width: 390, height: 844 });
      await page.reload();
      await until(page, CANDLES_DRAWN);
      expect(await page.evaluate('document.documentElement.scrollWidth <= window.innerWidth')).toBe(true);
      await screenshot(page, 'token-phone');
      await screenshot(page, 'token-390', false);
      // At 390 px: the address on one line (an ellipsis, a Copy button), the trades' Price column in view.
      const address = page.getByTestId('contract-address');
      const box = (await address.boundingBox())!;
      expect(box.height).toBeLessThan(30);
      expect(box.x + box.width).toBeLessThanOrEqual(390);
      const price = (await page.locator('[data-testid="trades"] [data-testid="trade-price"]').first().boundingBox())!;
      expect(price.x + price.width).toBeLessThanOrEqual(390);
    } finally {
      await context.close();
    }
  }, 120_000);

  it('a person creates a token, buys $1 and sells half from the page; the chain holds exactly what the page showed', async () => {
    const { context, page } = await personPage(person);
    try {
      const usdcBefore = await usdc(person.address);
      await page.goto(`${service.url}/#/create`);
      await page.getByRole('button', { name: 'Connect wallet to create' }).click();
      await page.getByTestId('connected').waitFor();
      for (const input of await page.locator('form.create input, form.create textarea').all()) {
        expect(await input.evaluate((el: any) => el.labels.length)).toBeGreaterThan(0); // every field is labelled
      }
      await page.getByLabel('Name').fill('Page Made');
      await page.getByLabel('Symbol').fill('page');
      await page.getByLabel('Description').fill('Launched from a browser wallet.');
      await screenshot(page, 'create');
      await page.getByRole('button', { name: 'Review' }).click();
      // The 402's price is shown before anything is signed.
      const price = page.locator('[data-price]');
      await price.waitFor();
      expect(await price.getAttribute('data-price')).toBe('0.01');
      expect(await price.getAttribute('data-asset')).toBe('USDC');
      await page.getByRole('button', { name: /^Sign and pay 0\.01 USDC/ }).click();
      await page.waitForURL(/#\/token\/tok_/);
      const tokenId = page.url().split('/').pop()!;
      const address = (await page.getByTestId('contract-address').textContent()) as Hex;
      await page.locator('[data-state="DEPLOYED"]').waitFor({ timeout: 30_000 });

      await page.getByLabel('Amount in USD').fill('1');
      await page.getByRole('button', { name: 'Review buy' }).click();
      await price.waitFor();
      expect(await price.getAttribute('data-price')).toBe('1');
      await page.getByRole('button', { name: /^Sign and pay 1 USDC/ }).click();
      await page.getByTestId('tokens-received').waitFor();
      const received = await exact(page, 'tokens-received');
      await page.locator('[data-testid="delivery-state"] [data-state="CONFIRMED"]').waitFor({ timeout: 30_000 });
      expect(await tokenBalance(address, person.address)).toBe(parseTokens(received));
      // The position the panel shows is the same number, to the unit.
      await page.locator(`[data-testid="holding"] [data-exact="${received}"]`).waitFor({ timeout: 30_000 });

      await page.getByRole('tab', { name: 'Sell' }).click();
      await page.getByRole('button', { name: '50%' }).click();
      const half = await page.getByLabel(/Tokens of PAGE to sell/).inputValue();
      expect(parseTokens(half)).toBe(parseTokens(received) / 2n);
      await page.getByRole('button', { name: 'Review sell' }).click();
      await page.getByRole('button', { name: /^Sign permission to move/ }).click();
      await price.waitFor();
      expect(await price.getAttribute('data-price')).toBe('0.01');
      await page.getByRole('button', { name: /^Sign and pay 0\.01 USDC/ }).click();
      await page.getByTestId('tokens-sold').waitFor({ timeout: 30_000 });
      expect(await exact(page, 'tokens-sold')).toBe(half);
      const proceeds = await exact(page, 'usd-received');
      await page.locator('[data-testid="payout-state"] [data-state="CONFIRMED"]').waitFor({ timeout: 30_000 });
      const left = parseTokens(received) - parseTokens(half);
      expect(await tokenBalance(address, person.address)).toBe(left);
      // USDC: $0.01 to create, $1 to buy, $0.01 to sell, the proceeds back — to the unit.
      expect(await usdc(person.address)).toBe(usdcBefore - parseUsd('0.01') - parseUsd('1') - parseUsd('0.01') + parseUsd(proceeds));
      await page.locator(`[data-testid="holding"] [data-exact="${formatTokens(left)}"]`).waitFor({ timeout: 30_000 });
      await screenshot(page, 'token-traded');

      await page.goto(`${service.url}/#/wallet`);
      const row = page.locator(`[data-testid="positions"] tr[data-token-id="${tokenId}"]`);
      await row.waitFor();
      expect(parseTokens(await row.getByTestId('balance').locator('[data-exact]').getAttribute('data-exact'))).toBe(left);
      await screenshot(page, 'wallet');
      // Anyone's wallet, read-only, looked up from the wallet page: the creator's earnings by symbol.
      await page.getByLabel('Wallet address').fill(apiCreator.address);
      await page.getByRole('button', { name: 'Look up' }).click();
      await page.waitForURL(new RegExp(`#/wallet/${apiCreator.address}$`));
      const earnings = page.getByTestId('earnings');
      await earnings.waitFor();
      expect(await earnings.textContent()).not.toMatch(/tok_\w{6}…|tok_01\w{8}…$/);
      expect(await earnings.locator('strong').first().textContent()).toMatch(/^[A-Z0-9]+$/);
      await screenshot(page, 'wallet-lookup');
      await page.setViewportSize({ width: 390, height: 844 });
      await screenshot(page, 'wallet-390');
    } finally {
      await context.close();
    }
  }, 180_000);

  it('a person pledges to a fair launch from the page; when the raise fills, the page shows the tokens the chain holds', async () => {
    const res = await api(apiCreator, '/tokens', { name: 'Page Fair', symbol: 'PFAIR', launch: { mode: 'fair', goalUsd: '1', durationSeconds: 12 } });
    expect(res.status).toBe(201);
    const token = (await json(res)).data as { tokenId: string; address: Hex };
    const { context, page } = await personPage(person);
    try {
      await page.goto(`${service.url}/#/token/${token.tokenId}`);
      await page.getByTestId('raise').waitFor();
      expect(await page.getByRole('tab', { name: 'Buy' }).count()).toBe(0); // no trading while it raises
      await page.getByRole('button', { name: 'Connect wallet to pledge' }).click();
      await page.getByTestId('connected').waitFor();
      await page.getByLabel('Pledge in USD').fill('2');
      await page.getByRole('button', { name: 'Sign and pledge' }).click();
      const price = page.locator('[data-price]');
      await price.waitFor();
      expect(await price.getAttribute('data-price')).toBe('0.01');
      await page.getByRole('button', { name: /^Sign and pay 0\.01 USDC/ }).click();
      await page.locator('[data-testid="raise"] .checkout .ok').waitFor({ timeout: 30_000 });
      await page.locator('[data-testid="raise"] [role="progressbar"][aria-valuenow="100.00"]').waitFor({ timeout: 30_000 });
      await screenshot(page, 'raise-pledged');
      // The raise ends (the workers on their timers) and fills: the person's tokens, to the unit, on the page and on chain.
      await page.locator('[data-testid="raise-mine"]', { hasText: 'received' }).waitFor({ timeout: 45_000 });
      const raise = (await json(await fetch(`${service.url}/api/tokens/${token.tokenId}/raise`))).data;
      expect(raise.state).toBe('FILLED');
      const tokens = raise.pledges[0].tokens as string;
      await page.locator(`[data-testid="raise-mine"] [data-exact="${tokens}"]`).waitFor();
      await pollUntil(async () => (await tokenBalance(token.address, person.address)) === parseTokens(tokens), { stepMs: 500 });
      expect(await tokenBalance(token.address, person.address)).toBe(parseTokens(tokens));
      await page.getByRole('tab', { name: 'Buy' }).waitFor({ timeout: 30_000 }); // it trades now
      await screenshot(page, 'raise-filled');
    } finally {
      await context.close();
    }
  }, 150_000);

  it('a refused payment shows the error’s message', async () => {
    const token = await createToken('No Funds', 'NOFUN');
    const broke = privateKeyToAccount(generatePrivateKey()); // a new wallet: testnet, and no USDC
    const { context, page } = await personPage(broke);
    try {
      await page.goto(`${service.url}/#/token/${token.tokenId}`);
      await page.getByRole('button', { name: 'Connect wallet' }).first().click();
      await page.getByRole('button', { name: 'Review buy' }).click();
      await page.locator('[data-price]').waitFor();
      const refused = page.waitForResponse((r) => r.url().endsWith('/entrypoints/token_buy_usd') && r.request().headers()['payment-signature'] !== undefined);
      await page.getByRole('button', { name: /^Sign and pay/ }).click();
      const answer = await refused;
      const envelope = await answer.json();
      expect(answer.status()).toBe(402);
      expect(envelope.error.code).toBe('INSUFFICIENT_FUNDS');
      const alert = page.getByRole('alert');
      await alert.waitFor();
      expect(await alert.locator('.error-message').textContent()).toContain(envelope.error.message);
      expect(await alert.getAttribute('data-code')).toBe('INSUFFICIENT_FUNDS');
      await screenshot(page, 'refused');
    } finally {
      await context.close();
    }
  }, 120_000);

  it('a page on an allowed origin can ask the price and send a payment through CORS; a page on another origin cannot', async () => {
    const token = await createToken('Cors Cat', 'CORS');
    const context = await browser.newContext();
    try {
      const page = await context.newPage();
      // An unpaid request (JSON body and X-Wallet-Address: a preflight) and one carrying PAYMENT-SIGNATURE.
      const probe = `(async ({ url, tokenId, wallet }) => {
        const call = async (headers) => {
          try {
            const res = await fetch(url + '/entrypoints/token_buy_usd', { method: 'POST', headers: { 'content-type': 'application/json', 'x-wallet-address': wallet, ...headers }, body: JSON.stringify({ tokenId, usdAmount: '1' }) });
            return { status: res.status, paymentRequired: res.headers.get('payment-required') !== null, requestId: res.headers.get('x-request-id') !== null, code: (await res.json()).error.code };
          } catch (e) { return { failed: String(e) }; }
        };
        return [await call({}), await call({ 'payment-signature': 'bm90IGEgcGF5bWVudA==' })];
      })`;
      const args = { url: service.url, tokenId: token.tokenId, wallet: person.address };
      await page.goto(origins.allowed);
      const [unpaid, paid] = (await page.evaluate(`${probe}(${JSON.stringify(args)})`)) as any[];
      expect(unpaid).toEqual({ status: 402, paymentRequired: true, requestId: true, code: 'PAYMENT_REQUIRED' });
      expect(paid).toMatchObject({ status: 402, paymentRequired: true, code: 'PAYMENT_INVALID' });

      await page.goto(origins.other);
      const refused = (await page.evaluate(`${probe}(${JSON.stringify(args)})`)) as any[];
      expect(refused[0].failed).toMatch(/Failed to fetch/);
      expect(refused[1].failed).toMatch(/Failed to fetch/);
    } finally {
      await context.close();
    }
  }, 60_000);
});
