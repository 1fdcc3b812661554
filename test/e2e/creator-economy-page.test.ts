/**
 * Creator splits, cashback and a vested dev buy on the page, in a real headless Chromium on the
 * embedded devnet (docs/api.md "Fees and earnings", "The page"): a token's page says who earns the
 * creator's half of its fees and shows a vested dev buy's schedule and what is still locked; a
 * person creates a token with split wallets and a locked dev buy from the create form, paying the
 * price the 402 named.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import type { PrivateKeyAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startService, type RunningService } from '../../src/bootstrap/compose.js';
import { PRODUCTION, TESTNET } from '../../src/domain/network.js';
import { injectWallet, launchBrowser, screenshot } from '../support/browser.js';
import { devnetConfig, json } from '../support/service.js';
import { devAccount, payingFetch } from '../support/x402-client.js';

const [creator, person] = [devAccount(5), devAccount(7)];
const TEAM = ['0x90F79bf6EB2c4f870365E785982E1f101E93b906', '0x15d34AAf54267DB7D7c367839AAf71A00a2C6A65', '0x9965507D1a55bcC2695C58ba16FB37d819B0A4dc'];
const dataDir = mkdtempSync(join(tmpdir(), 'launchpad-economy-page-'));
let service: RunningService;
let browser: Browser;

beforeAll(async () => {
  const config = await devnetConfig(dataDir, { DEVNET_IDLE_BLOCK_SECONDS: '0' });
  [service, browser] = await Promise.all([startService(config), launchBrowser()]);
  await service.warmPage();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await service?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

const paid = async (account: PrivateKeyAccount, body: unknown) =>
  (
    await json(
      await payingFetch(account)(`${service.url}/tokens`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-wallet-address': account.address },
        body: JSON.stringify(body),
      }),
    )
  ).data;

async function pageOf(account: PrivateKeyAccount): Promise<{ page: Page; close: () => Promise<void> }> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, colorScheme: 'dark' });
  const rpc = service.devnet!.chains;
  await injectWallet(context, account, { 8453: rpc[PRODUCTION].rpcUrl, 84532: rpc[TESTNET].rpcUrl }, 84532);
  const page = await context.newPage();
  page.on('pageerror', (e) => console.error(`page error: ${e.message}`));
  return { page, close: () => context.close() };
}

describe('fee terms on the page', () => {
  it("a token's page says who earns its creator share, and shows a vested dev buy's schedule and what is locked", async () => {
    const split = await paid(creator, { name: 'Team Split', symbol: 'TSPL', creatorSplits: [{ wallet: TEAM[0], bps: 6000 }, { wallet: TEAM[1], bps: 3000 }, { wallet: TEAM[2], bps: 1000 }] });
    const back = await paid(creator, { name: 'Cash Back', symbol: 'CBCK', feeMode: 'cashback' });
    const vested = await paid(creator, { name: 'Locked Dev', symbol: 'LOCK', initialBuyUsd: '3', vesting: { cliffSeconds: 86_400, durationSeconds: 30 * 86_400 } });
    const { page, close } = await pageOf(person);
    try {
      await page.goto(`${service.url}/#/token/${split.tokenId}`);
      const splits = page.getByTestId('creator-splits');
      await splits.waitFor();
      expect(await splits.locator('li').allTextContents()).toEqual(['0x90F7…b906 60%', '0x15d3…6A65 30%', '0x9965…A4dc 10%']);

      await page.goto(`${service.url}/#/token/${back.tokenId}`);
      await page.getByTestId('fee-mode').filter({ hasText: 'cashback' }).waitFor();
      expect(await page.getByTestId('fee-mode').textContent()).toMatch(/goes back to the trader/);

      await page.goto(`${service.url}/#/token/${vested.tokenId}`);
      const vesting = page.getByTestId('vesting');
      await vesting.waitFor();
      expect(await vesting.locator('[data-exact]').first().getAttribute('data-exact')).toBe(vested.initialBuy.tokensReceived);
      expect(await vesting.textContent()).toMatch(/still locked in custody/);
      expect(await vesting.getByRole('progressbar').getAttribute('aria-valuetext')).toBe('0% released');
      await page.getByTestId('holder-locked').waitFor();
      expect(await page.getByTestId('holder-locked').locator('[data-exact]').getAttribute('data-exact')).toBe(vested.initialBuy.tokensReceived);
      await screenshot(page, 'vested-token');
    } finally {
      await close();
    }
  }, 120_000);

  it('a person creates a token with split wallets and a locked dev buy from the form, paying the price the 402 named', async () => {
    const { page, close } = await pageOf(person);
    try {
      await page.goto(`${service.url}/#/create`);
      await page.getByRole('button', { name: 'Connect wallet to create' }).click();
      await page.getByTestId('connected').waitFor();
      await page.getByLabel('Name').fill('Form Split');
      await page.getByLabel('Symbol').fill('FSPL');
      await page.getByLabel('Dev buy in USD').fill('2');
      await page.locator('#create-fee-mode').selectOption('splits');
      await page.getByRole('button', { name: 'Add a wallet' }).click();
      const wallets = page.getByLabel('Wallet', { exact: true });
      const percents = page.getByLabel('Percent of the creator share');
      await wallets.nth(0).fill(TEAM[0]!);
      await percents.nth(0).fill('70');
      await wallets.nth(1).fill(TEAM[1]!);
      await percents.nth(1).fill('30');
      await page.locator('#create-vest').check();
      await page.getByLabel('Cliff (days)').fill('1');
      await page.getByLabel('then over (days)').fill('30');
      await screenshot(page, 'create-split-vested');
      await page.getByRole('button', { name: 'Review' }).click();
      const price = page.locator('[data-price]');
      await price.waitFor();
      expect(await price.getAttribute('data-price')).toBe('2.01');
      await page.getByRole('button', { name: /^Sign and pay 2\.01 USDC/ }).click();
      await page.waitForURL(/#\/token\/tok_/);
      const tokenId = page.url().split('/').pop()!;
      const token = (await json(await fetch(`${service.url}/tokens/${tokenId}`))).data;
      expect(token.creatorSplits).toEqual([{ wallet: TEAM[0], bps: 7000 }, { wallet: TEAM[1], bps: 3000 }]);
      expect(token.vesting).toMatchObject({ cliffSeconds: 86_400, durationSeconds: 30 * 86_400, releasedTokens: '0' });
      await page.getByTestId('vesting').waitFor();
      expect(await page.getByTestId('creator-splits').locator('li').count()).toBe(2);
    } finally {
      await close();
    }
  }, 120_000);
});
