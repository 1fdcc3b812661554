/**
 * The comment thread on the page, in a real headless Chromium on the embedded devnet (docs/api.md
 * "Comments", "The page"): a hostile comment — markup with an onerror handler, a `javascript:`
 * link — shows as those characters and runs nothing (no dialog opens, no element is made of
 * it); the creator pays for a comment from the box with its browser wallet, sees one posted
 * elsewhere arrive live, and hides one with its wallet proven.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import type { PrivateKeyAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startService, type RunningService } from '../../src/bootstrap/compose.js';
import { PRODUCTION, TESTNET } from '../../src/domain/network.js';
import { ARTIFACTS, injectWallet, launchBrowser, screenshot } from '../support/browser.js';
import { devnetConfig, json } from '../support/service.js';
import { devAccount, payingFetch } from '../support/x402-client.js';

const HOSTILE = '<img src=x onerror=alert(1)> javascript:alert(document.cookie)';
const [creator, holder] = [devAccount(5), devAccount(6)];
const dataDir = mkdtempSync(join(tmpdir(), 'launchpad-comments-page-'));
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

const paid = async (account: PrivateKeyAccount, path: string, body: unknown) =>
  (
    await json(
      await payingFetch(account)(`${service.url}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-wallet-address': account.address },
        body: JSON.stringify(body),
      }),
    )
  ).data;

describe('the comment thread in Chromium', () => {
  it('shows a hostile comment as text and runs nothing; the creator pays for a comment from the box, sees one arrive live, and hides one', async () => {
    const { tokenId } = await paid(creator, '/tokens', { name: 'Chatter', symbol: 'CHTR', initialBuyUsd: '1' });
    await paid(holder, '/entrypoints/token_buy_usd', { tokenId, usdAmount: '2' });
    const hostile = await paid(holder, '/entrypoints/token_comment', { tokenId, text: HOSTILE });

    const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, colorScheme: 'dark' });
    const rpc = service.devnet!.chains;
    await injectWallet(context, creator, { 8453: rpc[PRODUCTION].rpcUrl, 84532: rpc[TESTNET].rpcUrl }, 84532);
    const page = await context.newPage();
    const dialogs: string[] = [];
    page.on('dialog', (d) => {
      dialogs.push(d.message());
      void d.dismiss();
    });
    page.on('pageerror', (e) => console.error(`page error: ${e.message}`));
    /** The thread alone, into the test's artifacts. */
    const shot = async (name: string) => {
      mkdirSync(ARTIFACTS, { recursive: true });
      await page.locator('section', { has: page.locator('#comments-title') }).screenshot({ path: join(ARTIFACTS, `${name}.png`) });
    };
    try {
      await page.goto(`${service.url}/#/token/${tokenId}`);
      const thread = page.getByTestId('comments');
      const hostileText = page.locator(`#comment-${hostile.commentId} [data-testid="comment-text"]`);
      await hostileText.waitFor();
      // The characters, exactly; no element was made of them.
      expect(await hostileText.textContent()).toBe(HOSTILE);
      expect(await thread.locator('img').count()).toBe(0);
      expect(await thread.locator('a[href^="javascript"]').count()).toBe(0);
      expect(await page.locator(`#comment-${hostile.commentId} [data-testid="badge-top_holder"]`).count()).toBe(1);

      // The creator comments from the box: the price first, then its wallet signs and pays.
      await page.getByTestId('comment-input').fill('Thanks for holding — more soon.');
      await page.getByTestId('comment-submit').click();
      await page.getByRole('button', { name: /^Sign and pay 0\.001 USDC/ }).click();
      const mine = thread.getByText('Thanks for holding — more soon.');
      await mine.waitFor({ timeout: 30_000 });
      expect(await thread.locator('[data-testid="comment"]').filter({ hasText: 'Thanks for holding' }).locator('[data-testid="badge-creator"]').count()).toBe(1);

      // One posted elsewhere arrives without a reload.
      await page.evaluate('window.__notReloaded = true'); // gone after a reload, however long the comment takes to show
      const live = await paid(holder, '/entrypoints/token_comment', { tokenId, text: 'gm from the API', replyTo: hostile.commentId });
      await page.locator(`#comment-${hostile.commentId} #comment-${live.commentId}`).waitFor({ timeout: 30_000 });
      expect(await page.evaluate('window.__notReloaded === true')).toBe(true);

      await page.waitForTimeout(300); // a script smuggled in would have run by now
      await shot('comments-hostile-as-text');

      // The creator hides the hostile one (its wallet proven with Sign-In-With-X): its text is gone.
      await page.locator(`#comment-${hostile.commentId} > .comment-actions [data-testid="comment-hide"]`).click();
      await page.locator(`#comment-${hostile.commentId} > [data-testid="comment-hidden"]`).waitFor({ timeout: 30_000 });
      const listed = (await json(await fetch(`${service.url}/tokens/${tokenId}/comments`))).data.items;
      expect(listed.find((c: { commentId: string }) => c.commentId === hostile.commentId)).toMatchObject({ hidden: true, text: null });
      await screenshot(page, 'comments-page');
      await shot('comments-hidden');
      expect(dialogs).toEqual([]);
    } finally {
      await context.close();
    }
  }, 120_000);
});
