/**
 * The page, round four (issue 55), in a real headless Chromium against the service on the embedded
 * devnet with its workers on their timers: without a browser wallet the page says what to do and
 * the empty feed points at `npm run demo`; the feed marks a fair launch that is raising; the create
 * form launches one and a pledge is cancelled from the page; an order's trigger starts below (or
 * above) the price, rounded; a buy's review is rounded and its payTo fits; a wallet's page shows
 * its USDC, open orders and pledges and cancels them; a filled raise names its three prices; and
 * at 390 px the Orders box clears "Review buy" and every table's cells are on the screen.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Locator, Page } from 'playwright-core';
import type { Hex } from 'viem';
import type { PrivateKeyAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { triggerFrom } from '../../src/adapters/web/browser/format.js';
import { priceDecimals } from '../../src/adapters/web/browser/price-axis.js';
import { startService, type RunningService } from '../../src/bootstrap/compose.js';
import { formatUsd } from '../../src/domain/money.js';
import { TESTNET } from '../../src/domain/network.js';
import { devnetRpcUrls, launchBrowser, openPage, screenshot } from '../support/browser.js';
import { devnetTools } from '../support/devnet.js';
import { devnetConfig, json } from '../support/service.js';
import { pollUntil, waitFor } from '../support/wait.js';
import { devAccount, payingFetch } from '../support/x402-client.js';

const dataDir = mkdtempSync(join(tmpdir(), 'launchpad-page-held-'));
let service: RunningService;
let browser: Browser;
const [creator, backer, person, other] = [devAccount(5), devAccount(6), devAccount(7), devAccount(8)];

beforeAll(async () => {
  const config = await devnetConfig(dataDir, { WORKERS: 'true', DEVNET_IDLE_BLOCK_SECONDS: '0' });
  [service, browser] = await Promise.all([startService(config), launchBrowser()]);
  await service.warmPage();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await service?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

async function get(path: string) {
  const answer = await json(await fetch(`${service.url}${path}`));
  if (!answer.success) throw new Error(`${path}: ${JSON.stringify(answer.error)}`);
  return answer.data;
}
async function paid(account: PrivateKeyAccount, path: string, body: unknown) {
  const res = await payingFetch(account)(`${service.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-wallet-address': account.address }, body: JSON.stringify(body) });
  const answer = await json(res);
  expect(res.status, JSON.stringify(answer)).toBeLessThan(300);
  return answer.data;
}
const token = (name: string, symbol: string, launch?: Record<string, unknown>) => paid(creator, '/tokens', { name, symbol, ...(launch ? { launch: { mode: 'fair', ...launch } } : {}) });
/** Its contract on chain (the workers deploy it): what an order's authorization needs. */
const deployed = (tokenId: string) => waitFor(`${tokenId} deployed`, async () => (await get(`/tokens/${tokenId}`)).deployment.state === 'DEPLOYED', { stepMs: 200 });

/** A typed authorization the service serves, signed as a wallet signs it. */
async function signed(account: PrivateKeyAccount, served: { typedData: any }) {
  const { typedData } = served;
  const m = typedData.message;
  return account.signTypedData({ domain: typedData.domain, types: typedData.types, primaryType: typedData.primaryType, message: { ...m, value: BigInt(m.value), validAfter: BigInt(m.validAfter), validBefore: BigInt(m.validBefore) } });
}
async function pledge(tokenId: string, account: PrivateKeyAccount, usdAmount: string) {
  const served = await get(`/api/tokens/${tokenId}/pledge-authorization?wallet=${account.address}&usdAmount=${usdAmount}`);
  return (await paid(account, '/entrypoints/token_pledge', { tokenId, usdAmount, authorization: { ...served.authorization, signature: await signed(account, served) } })).pledge;
}
async function limitBuy(tokenId: string, account: PrivateKeyAccount, usdAmount: string, triggerPriceUsd: string) {
  const expiresAt = new Date(Date.now() + 3_600_000).toISOString();
  const served = await get(`/api/orders/authorization?wallet=${account.address}&tokenId=${tokenId}&kind=limit_buy&usdAmount=${usdAmount}&expiresAt=${expiresAt}`);
  return paid(account, '/entrypoints/order_place', { tokenId, kind: 'limit_buy', usdAmount, triggerPriceUsd, expiresAt, authorization: { ...served.authorization, signature: await signed(account, served) } });
}

const rpcUrls = () => devnetRpcUrls(service.devnet!.chains);
const pageOf = (account: PrivateKeyAccount | null, viewport?: { width: number; height: number }) => openPage(browser, { account, rpcUrls: rpcUrls(), ...(viewport ? { viewport } : {}) });

/** Every box of `locator` lies across the screen's width: nothing cut off at the right, nothing left of 0. */
async function onScreen(locator: Locator, width: number): Promise<string[]> {
  const off: string[] = [];
  for (const el of await locator.all()) {
    const box = await el.boundingBox();
    if (box && (box.x < 0 || box.x + box.width > width + 0.5)) off.push(`${(await el.textContent())?.trim()} at ${Math.round(box.x)}–${Math.round(box.x + box.width)}`);
  }
  return off;
}

const fitsTheWidth = (page: Page) => page.evaluate('document.documentElement.scrollWidth <= window.innerWidth');

describe('the page: fair launches, orders, the wallet, phones, and no wallet (issue 55)', () => {
  it('without a browser wallet it says what to do — install one, use a demo key, npm run demo or the API — and the empty feed points at the demo', async () => {
    const { context, page } = await pageOf(null);
    try {
      await page.goto(`${service.url}/`);
      const empty = page.getByTestId('empty-feed');
      await empty.waitFor();
      expect(await empty.textContent()).toContain('npm run demo');
      await page.getByRole('banner').getByRole('button', { name: 'Connect wallet' }).click();
      const help = page.getByTestId('no-wallet');
      await help.waitFor();
      const said = (await help.textContent())!;
      for (const words of ['Install one', 'MetaMask', 'WALLET_KEY', 'npm run demo', 'OpenAPI', 'MCP']) expect(said, words).toMatch(new RegExp(words, 'i'));
      await screenshot(page, 'no-wallet-feed');
      // Where a wallet would act — create, the wallet's page — the same words stand instead of a button that fails.
      for (const route of ['#/create', '#/wallet']) {
        await page.goto(`${service.url}/${route}`);
        await page.getByTestId('no-wallet').waitFor();
        expect(await page.getByRole('main').getByRole('button', { name: /Connect wallet/ }).count()).toBe(0);
      }
      await screenshot(page, 'no-wallet-wallet');
    } finally {
      await context.close();
    }
  }, 60_000);

  it('the feed marks a fair launch that is raising — pledged of goal, time left — and follows its pledges live', async () => {
    const fair = await token('Feed Raise', 'FRAISE', { goalUsd: '100', durationSeconds: 3600 });
    await pledge(fair.tokenId, backer, '7');
    const { context, page } = await pageOf(null);
    try {
      await page.goto(`${service.url}/`);
      const card = page.locator(`#card-${fair.tokenId}`);
      await card.getByTestId('card-pledged').waitFor();
      expect(await card.getByTestId('card-raise').textContent()).toContain('raising');
      expect(await card.getByTestId('card-pledged').textContent()).toBe('$7 of $100');
      expect(await card.locator('[data-ends-at]').textContent()).toMatch(/^(59|60) min left$|^1 h 0 min left$/);
      expect(await card.getByRole('progressbar').getAttribute('aria-valuenow')).toBe('7.00');
      expect(await card.getByTestId('card-price').count()).toBe(0); // no price change nor curve: it does not trade yet
      await pledge(fair.tokenId, other, '3');
      await card.getByTestId('card-pledged').filter({ hasText: '$10 of $100' }).waitFor();
      await screenshot(page, 'feed-raising');
    } finally {
      await context.close();
    }
  }, 60_000);

  it('a person launches a fair launch from the create form, pledges, and cancels the pledge from the page', async () => {
    const { context, page } = await pageOf(person);
    try {
      await page.goto(`${service.url}/#/create`);
      await page.getByRole('button', { name: 'Connect wallet to create' }).click();
      await page.getByTestId('connected').waitFor();
      await page.getByLabel('Name').fill('Form Raise');
      await page.getByLabel('Symbol').fill('FORMR');
      expect(await page.getByLabel('Goal in USD').isVisible()).toBe(false);
      await page.getByRole('radio', { name: /Fair launch/ }).check();
      expect(await page.getByLabel('Dev buy in USD').isVisible()).toBe(false); // not with a fair launch
      await page.getByLabel('Goal in USD').fill('50');
      await page.getByLabel('Raise for').fill('10');
      await page.getByLabel('Unit of the duration').selectOption({ label: 'minutes' });
      await page.getByLabel('At most per wallet, in USD').fill('20');
      await screenshot(page, 'create-fair');
      await page.getByRole('button', { name: 'Review' }).click();
      await page.getByTestId('price').filter({ hasText: 'as a fair launch raising $50' }).waitFor();
      await page.getByRole('button', { name: /^Sign and pay 0\.01 USDC/ }).click();
      await page.waitForURL(/#\/token\/tok_/);
      const tokenId = page.url().split('/').pop()!;
      const raise = await get(`/api/tokens/${tokenId}/raise`);
      expect(raise).toMatchObject({ state: 'RAISING', goalUsd: '50', maxPerWalletUsd: '20' });
      const created = await get(`/tokens/${tokenId}`);
      expect(Date.parse(raise.endsAt) - Date.parse(created.createdAt)).toBe(600_000);

      await page.getByLabel('Pledge in USD').fill('3');
      await page.getByRole('button', { name: 'Sign and pledge' }).click();
      await page.getByRole('button', { name: /^Sign and pay 0\.01 USDC/ }).click();
      const cancel = page.getByTestId('raise-pledges').getByTestId('cancel-pledge');
      await cancel.waitFor({ timeout: 30_000 });
      await screenshot(page, 'raise-own-pledge');
      await cancel.click();
      await cancel.waitFor({ state: 'detached' });
      const after = await get(`/api/tokens/${tokenId}/raise`);
      expect(after.pledges.map((p: { state: string }) => p.state)).toEqual(['CANCELLED']);
      expect(after.pledgedUsd).toBe('0');
    } finally {
      await context.close();
    }
  }, 90_000);

  it("an order's trigger starts below the price (above for a take-profit), rounded as the chart shows it; the buy review is rounded and its payTo fits; at 390 px nothing touches and every table fits", async () => {
    const { tokenId } = await token('Order Desk', 'ODESK');
    await paid(backer, '/entrypoints/token_buy_usd', { tokenId, usdAmount: '25' });
    await paid(other, '/entrypoints/token_buy_usd', { tokenId, usdAmount: '4' });
    await deployed(tokenId);
    const spot = (await get(`/tokens/${tokenId}`)).priceUsd as string;
    const { context, page } = await pageOf(person);
    try {
      await page.goto(`${service.url}/#/token/${tokenId}`);
      await page.getByRole('button', { name: 'Connect wallet' }).first().click();
      const trigger = page.getByLabel('Trigger price (USD per token)');
      await trigger.waitFor();
      const below = await trigger.inputValue();
      expect(below).toBe(triggerFrom(spot, -10, priceDecimals(Number(spot))));
      expect(Number(below)).toBeLessThan(Number(spot));
      expect(below.split('.')[1]!.length).toBeLessThanOrEqual(priceDecimals(Number(spot))); // never the spot's 18 decimals
      await page.getByLabel('Order', { exact: true }).selectOption('take_profit');
      expect(Number(await trigger.inputValue())).toBeGreaterThan(Number(spot));
      await page.getByLabel('Order', { exact: true }).selectOption('limit_buy');
      expect(await trigger.inputValue()).toBe(below);
      // The select is drawn as the inputs are.
      const look = (selector: string) => page.locator(selector).evaluate((el) => ['borderRadius', 'borderTopColor', 'backgroundColor', 'fontSize', 'height'].map((k) => (globalThis as any).getComputedStyle(el)[k]));
      expect(await look('#order-kind')).toEqual(await look('#order-trigger'));

      // A limit buy placed as it defaults: the trigger the page showed is the order's.
      await page.getByLabel('USD to spend').fill('2');
      await page.getByRole('button', { name: 'Sign and place order' }).click();
      await page.getByTestId('orders').getByRole('button', { name: /^Sign and pay 0\.01 USDC/ }).or(page.getByTestId('orders').getByRole('alert')).first().waitFor();
      expect(await page.getByTestId('orders').getByRole('alert').count(), (await page.getByTestId('orders').getByRole('alert').allTextContents()).join()).toBe(0);
      await page.getByRole('button', { name: /^Sign and pay 0\.01 USDC/ }).click();
      const placed = page.getByTestId('open-orders').locator('[data-order-id]');
      await placed.waitFor({ timeout: 30_000 });
      expect((await get(`/api/orders/${await placed.getAttribute('data-order-id')}`)).triggerPriceUsd).toBe(below);

      // The buy's review: "Buy about 176,121.75 ODESK", never 18 decimals; the address paid fits the panel.
      await page.getByLabel('Amount in USD').fill('1');
      await page.getByRole('button', { name: 'Review buy' }).click();
      const review = page.getByTestId('price');
      await review.waitFor();
      expect(await review.locator('p').first().textContent()).toMatch(/^Buy about \d{1,3}(,\d{3})*(\.\d{1,2})? ODESK for \$1 \(fee \$0\.01\)\.$/);
      const [panel, payTo] = [(await review.boundingBox())!, (await review.getByTestId('pay-to').boundingBox())!];
      expect(payTo.x + payTo.width).toBeLessThanOrEqual(panel.x + panel.width);
      expect(await review.getByTestId('pay-to').getAttribute('data-address')).toMatch(/^0x[0-9a-fA-F]{40}$/);
      await screenshot(page, 'token-review');

      await page.setViewportSize({ width: 390, height: 844 });
      expect(await fitsTheWidth(page)).toBe(true);
      const payToPhone = (await review.getByTestId('pay-to').boundingBox())!;
      expect(payToPhone.x + payToPhone.width).toBeLessThanOrEqual(390);
      await review.getByRole('button', { name: 'Cancel', exact: true }).click();
      const reviewBuy = (await page.getByRole('button', { name: 'Review buy' }).boundingBox())!;
      const orders = (await page.getByTestId('orders').boundingBox())!;
      expect(orders.y - (reviewBuy.y + reviewBuy.height)).toBeGreaterThanOrEqual(12);
      // Every trade's Time and Wallet, and every holder, within the 390 px.
      await page.locator('[data-testid="trades"] tr[data-trade-id]').nth(1).waitFor();
      expect(await onScreen(page.locator('[data-testid="trades"] td'), 390)).toEqual([]);
      expect(await onScreen(page.locator('[data-testid="holders"] td'), 390)).toEqual([]);
      expect(await page.getByTestId('trade-wallet').first().isVisible()).toBe(true);
      await screenshot(page, 'token-orders-390');
    } finally {
      await context.close();
    }
  }, 120_000);

  it("a wallet's page shows its USDC, positions, open orders and pledges, and cancels them; at 390 px its tables fit", async () => {
    const { tokenId } = await token('Wallet Desk', 'WDESK');
    await paid(person, '/entrypoints/token_buy_usd', { tokenId, usdAmount: '3' });
    await deployed(tokenId);
    const order = await limitBuy(tokenId, person, '1', '0.000001');
    const fair = await token('Wallet Raise', 'WRAISE', { goalUsd: '100', durationSeconds: 3600 });
    const pledged = await pledge(fair.tokenId, person, '4');
    const { context, page } = await pageOf(person);
    try {
      await page.goto(`${service.url}/#/wallet`);
      await page.getByRole('main').getByRole('button', { name: 'Connect wallet' }).click();
      await page.getByTestId('holdings').waitFor();
      const usdc = await devnetTools(service.devnet!).usdcBalance(TESTNET, person.address as Hex);
      expect(await page.getByTestId('usdc').locator('[data-exact]').getAttribute('data-exact')).toBe(formatUsd(usdc));
      await page.locator(`[data-testid="positions"] tr[data-token-id="${tokenId}"]`).waitFor();
      const orderRow = page.getByTestId('wallet-orders').locator(`[data-order-id="${order.orderId}"]`);
      expect(await orderRow.textContent()).toContain('WDESK');
      const pledgeRow = page.getByTestId('wallet-pledges').locator(`[data-pledge-id="${pledged.pledgeId}"]`);
      expect(await pledgeRow.textContent()).toContain('WRAISE');
      await screenshot(page, 'wallet-held');

      await page.setViewportSize({ width: 390, height: 844 });
      expect(await fitsTheWidth(page)).toBe(true);
      expect(await onScreen(page.locator('[data-testid="positions"] td, [data-testid="positions"] tbody th'), 390)).toEqual([]);
      expect(await onScreen(page.locator('[data-testid="wallet-orders"] li > *, [data-testid="wallet-pledges"] li > *'), 390)).toEqual([]);
      await screenshot(page, 'wallet-held-390');

      // Cancelled from here, by the wallet's own signature: free, and gone from the page.
      await orderRow.getByTestId('cancel-order').click();
      await orderRow.waitFor({ state: 'detached' });
      expect((await get(`/api/orders/${order.orderId}`)).state).toBe('CANCELLED');
      await page.getByTestId('wallet-pledges').locator(`[data-pledge-id="${pledged.pledgeId}"]`).getByTestId('cancel-pledge').click();
      await page.getByTestId('wallet-pledges').locator(`[data-pledge-id="${pledged.pledgeId}"]`).waitFor({ state: 'detached' });
      expect((await get(`/api/pledges?wallet=${person.address}`)).pledges).toEqual([]);

      // Another wallet's page is read-only: its orders show, without Cancel.
      await limitBuy(tokenId, other, '1', '0.000001');
      await page.goto(`${service.url}/#/wallet/${other.address}`);
      await page.getByTestId('wallet-orders').locator('[data-order-id]').first().waitFor();
      expect(await page.getByTestId('cancel-order').count()).toBe(0);
    } finally {
      await context.close();
    }
  }, 120_000);

  it("a filled raise's page says which price is which: the pledgers' (fee included), the trades' (without it), the curve's now", async () => {
    const fair = await token('Filled Raise', 'FILLD', { goalUsd: '1', durationSeconds: 10 });
    await pledge(fair.tokenId, backer, '2');
    await waitFor('the raise filled', async () => (await get(`/api/tokens/${fair.tokenId}/raise`)).state === 'FILLED', { timeoutMs: 45_000, stepMs: 500 });
    const { context, page } = await pageOf(null);
    try {
      await page.goto(`${service.url}/#/token/${fair.tokenId}`);
      const price = page.getByTestId('raise-price');
      await price.waitFor();
      expect(await price.textContent()).toMatch(/^Pledgers’ price: \$0\.0000\d+ a token, the fee included/);
      expect(await page.getByTestId('figures').locator('dt').first().textContent()).toBe('Price now');
      expect(await page.locator('thead th').filter({ hasText: 'Price, no fee' }).count()).toBe(1);
      await page.locator('[data-testid="trades"] tr[data-trade-id]').first().waitFor();
      await pollUntil(() => page.evaluate(`document.querySelectorAll('[data-testid="chart"] canvas').length > 0`), { stepMs: 100 });
      await screenshot(page, 'raise-filled-prices');
    } finally {
      await context.close();
    }
  }, 90_000);
});
