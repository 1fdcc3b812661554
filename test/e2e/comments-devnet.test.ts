/**
 * Comments on the embedded devnet (docs/api.md "Comments"), paid with the official x402 client:
 * two comments and a reply listed with their authors' holdings and badges; a comment paid in
 * EURC at $0.001; the creator hides one with its wallet proven (Sign-In-With-X) and its text is
 * withheld from then on; a stranger cannot; bad input is refused before any 402 and charges
 * nothing.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { PaymentRequired } from '@x402/fetch';
import { createSIWxPayload, encodeSIWxHeader } from '@x402/extensions/sign-in-with-x';
import type { PrivateKeyAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startService, type RunningService } from '../../src/bootstrap/compose.js';
import { TESTNET } from '../../src/domain/network.js';
import { devnetTools } from '../support/devnet.js';
import { devnetConfig, json } from '../support/service.js';
import { decodeBase64Json, devAccount, payingFetch, preferEurc, signPayment } from '../support/x402-client.js';

const [creator, holder, stranger] = [devAccount(5), devAccount(6), devAccount(7)];
const dataDir = mkdtempSync(join(tmpdir(), 'launchpad-comments-'));
let service: RunningService;

beforeAll(async () => {
  service = await startService(await devnetConfig(dataDir, { DEVNET_IDLE_BLOCK_SECONDS: '0' }));
}, 60_000);

afterAll(async () => {
  await service?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

const paid = (account: PrivateKeyAccount, path: string, body: unknown, eurc = false) =>
  payingFetch(account, fetch, eurc ? preferEurc : undefined)(`${service.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-wallet-address': account.address },
    body: JSON.stringify(body),
  });
const balances = async (account: PrivateKeyAccount) => {
  const tools = devnetTools(service.devnet!);
  return [await tools.usdcBalance(TESTNET, account.address), await tools.assetBalance(TESTNET, 'EURC', account.address)];
};

/** The event stream replayed from its start (`Last-Event-ID: 0`) until `until` is in it, within a deadline. */
async function readEvents(path: string, until: RegExp): Promise<string> {
  const controller = new AbortController();
  const deadline = setTimeout(() => controller.abort(), 15_000);
  let text = '';
  try {
    const res = await fetch(`${service.url}${path}`, { headers: { 'last-event-id': '0' }, signal: controller.signal });
    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    while (!until.test(text)) {
      const { value, done } = await reader.read();
      if (done) break;
      text += decoder.decode(value, { stream: true });
    }
  } catch (e) {
    if (!controller.signal.aborted) throw e;
  } finally {
    clearTimeout(deadline);
    controller.abort();
  }
  return text;
}

/** A Sign-In-With-X proof of `account`, made by the official client function with a fresh nonce of our own. */
async function proof(account: PrivateKeyAccount, url: string): Promise<string> {
  const origin = new URL(service.url);
  const now = Date.now();
  const info = { domain: origin.host, uri: origin.origin, version: '1', nonce: `n${now}${Math.random().toString(36).slice(2, 10)}`.replace(/[^A-Za-z0-9]/g, ''), issuedAt: new Date(now).toISOString(), expirationTime: new Date(now + 120_000).toISOString(), chainId: TESTNET, type: 'eip191' as const };
  return encodeSIWxHeader(await createSIWxPayload(info, account, url));
}

describe('comments on the devnet', () => {
  let tokenId: string;

  it('two comments and a reply, paid with the x402 client, are listed newest first with their authors’ holdings and badges', async () => {
    tokenId = (await json(await paid(creator, '/tokens', { name: 'Chatty', symbol: 'CHAT', initialBuyUsd: '1' }))).data.tokenId;
    expect((await paid(holder, '/entrypoints/token_buy_usd', { tokenId, usdAmount: '3' })).status).toBe(200);
    const before = await balances(holder);
    const first = await paid(holder, '/entrypoints/token_comment', { tokenId, text: 'Bought the dip. 🚀\nSecond line.' });
    expect(first.status).toBe(201);
    expect(first.headers.get('payment-response')).toBeTruthy();
    const firstComment = (await json(first)).data;
    expect(await balances(holder)).toEqual([before[0]! - 1000n, before[1]]); // $0.001 in USDC units, exactly
    // The second is paid in EURC: $0.001 at the EURC price, rounded up; the floor holds.
    const [strangerUsdc, strangerEurc] = await balances(stranger);
    const second = (await json(await paid(stranger, '/entrypoints/token_comment', { tokenId, text: '<img src=x onerror=alert(1)> javascript:alert(1)' }, true))).data;
    const [usdcAfter, eurcAfter] = await balances(stranger);
    expect(usdcAfter).toBe(strangerUsdc);
    expect(strangerEurc! - eurcAfter!).toBeGreaterThan(800n); // ≈ 1000 / 1.08 EURC units (the EURC price on the devnet)
    expect(strangerEurc! - eurcAfter!).toBeLessThan(1000n);
    const reply = (await json(await paid(creator, '/entrypoints/token_comment', { tokenId, text: 'Welcome aboard', replyTo: firstComment.commentId }))).data;
    expect(reply.replyTo).toBe(firstComment.commentId);

    const thread = (await json(await fetch(`${service.url}/tokens/${tokenId}/comments`))).data;
    expect(thread.items.map((c: { commentId: string }) => c.commentId)).toEqual([second.commentId, firstComment.commentId]);
    const [s, f] = thread.items;
    expect(s).toMatchObject({ author: stranger.address, text: '<img src=x onerror=alert(1)> javascript:alert(1)', badges: [], holding: { balance: '0', share: '0' }, replies: [] });
    expect(f).toMatchObject({ author: holder.address, text: 'Bought the dip. 🚀\nSecond line.', badges: ['top_holder'] });
    expect(Number(f.holding.share)).toBeGreaterThan(0.7); // $3 of $4 bought
    expect(f.replies).toHaveLength(1);
    expect(f.replies[0]).toMatchObject({ author: creator.address, text: 'Welcome aboard', badges: ['creator', 'top_holder'] });
    expect(Number(f.replies[0].holding.share)).toBeGreaterThan(0.2);
    // The pages follow: one at a time, the cursor gives the older one.
    const page1 = (await json(await fetch(`${service.url}/tokens/${tokenId}/comments?limit=1`))).data;
    const page2 = (await json(await fetch(`${service.url}/tokens/${tokenId}/comments?limit=1&cursor=${page1.nextCursor}`))).data;
    expect([page1.items[0].commentId, page2.items[0].commentId, page2.nextCursor]).toEqual([second.commentId, firstComment.commentId, null]);
  });

  it('the creator hides a comment with its wallet proven: listed as hidden, its text withheld; a stranger is refused', async () => {
    const thread = (await json(await fetch(`${service.url}/tokens/${tokenId}/comments`))).data;
    const target = thread.items[0];
    const url = `${service.url}/tokens/${tokenId}/comments/${target.commentId}/hide`;
    const byStranger = await fetch(url, { method: 'POST', headers: { 'sign-in-with-x': await proof(stranger, url) } });
    expect(byStranger.status).toBe(403);
    expect(((await byStranger.json()) as { error: { code: string } }).error.code).toBe('NOT_TOKEN_CREATOR');
    const unproven = await fetch(url, { method: 'POST' });
    expect(unproven.status).toBe(400);
    expect(((await unproven.json()) as { error: { details: unknown } }).error.details).toMatchObject({ issues: [{ path: 'wallet', message: 'must be proven with a SIGN-IN-WITH-X header' }] });
    const named = await fetch(`${url}?wallet=${creator.address}`, { method: 'POST' });
    expect(named.status).toBe(400); // a wallet named in the query is no proof
    const hidden = await fetch(url, { method: 'POST', headers: { 'sign-in-with-x': await proof(creator, url) } });
    expect(hidden.status).toBe(200);
    expect(((await hidden.json()) as { data: unknown }).data).toMatchObject({ commentId: target.commentId, hidden: true, text: null });
    const body = await (await fetch(`${service.url}/tokens/${tokenId}/comments`)).text();
    expect(body).not.toContain('onerror');
    expect(JSON.parse(body).data.items[0]).toMatchObject({ commentId: target.commentId, author: stranger.address, hidden: true, text: null });
  });

  it('bad input is refused with its code before any payment: nothing is charged', async () => {
    const thread = (await json(await fetch(`${service.url}/tokens/${tokenId}/comments`))).data;
    const reply = thread.items[1].replies[0].commentId;
    const before = await balances(holder);
    const cases: [unknown, number, string][] = [
      [{ tokenId, text: 'look \u202Egpj.exe' }, 400, 'COMMENT_BIDI_CONTROL'],
      [{ tokenId, text: 'bell\u0007' }, 400, 'COMMENT_CONTROL_CHARACTER'],
      [{ tokenId, text: 'x'.repeat(501) }, 400, 'COMMENT_TEXT_TOO_LONG'],
      [{ tokenId, text: '   ' }, 400, 'COMMENT_TEXT_EMPTY'],
      [{ tokenId, text: 'deeper', replyTo: reply }, 409, 'COMMENT_REPLY_INVALID'],
      [{ tokenId, text: 'to a hidden one', replyTo: thread.items[0].commentId }, 409, 'COMMENT_REPLY_INVALID'],
    ];
    for (const [body, status, code] of cases) {
      const res = await paid(holder, '/entrypoints/token_comment', body);
      expect([res.status, ((await res.json()) as { error: { code: string } }).error.code]).toEqual([status, code]);
    }
    expect(await balances(holder)).toEqual(before);
    const metrics = await (await fetch(`${service.url}/metrics`)).text();
    expect(metrics).toMatch(/launchpad_comment_refusals_total\{code="COMMENT_BIDI_CONTROL"\} 1/);
    expect(metrics).toMatch(/launchpad_comments_total\{action="posted"\} 3/);
    expect(metrics).toMatch(/launchpad_comments_total\{action="hidden"\} 1/);
  });

  it('what was hidden is never served again: not by the event stream’s replay, nor by the paid answer replayed', async () => {
    // A comment paid by hand, so the very same payment can be sent again after the hide.
    const body = JSON.stringify({ tokenId, text: 'Secret rug plan 0xdeadbeef' });
    const post = (headers: Record<string, string> = {}) =>
      fetch(`${service.url}/entrypoints/token_comment`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });
    const required = decodeBase64Json<PaymentRequired>((await post()).headers.get('payment-required'));
    const payment = { 'payment-signature': await signPayment(stranger, required) };
    const posted = await post(payment);
    expect(posted.status).toBe(201);
    const comment = (await json(posted)).data;
    const url = `${service.url}/tokens/${tokenId}/comments/${comment.commentId}/hide`;
    expect((await fetch(url, { method: 'POST', headers: { 'sign-in-with-x': await proof(creator, url) } })).status).toBe(200);

    const replay = await readEvents(`/api/events?tokenId=${tokenId}`, new RegExp(`event: comment\\.hidden\\ndata: [^\\n]*${comment.commentId}`));
    expect(replay).toContain(`"commentId":"${comment.commentId}"`);
    expect(replay).not.toContain('Secret rug plan');
    const posts = replay.split('\n').filter((l) => l.startsWith('data: ') && l.includes(comment.commentId) && l.includes('"type":"comment.posted"'));
    expect(posts).toHaveLength(1);
    expect(JSON.parse(posts[0]!.slice(6)).data.comment).toMatchObject({ commentId: comment.commentId, hidden: true, text: null });

    // The same payment again is answered from the store, as the hide left it: charged once, no text.
    const again = await post(payment);
    expect(again.status).toBe(201);
    const answered = await again.text();
    expect(answered).not.toContain('Secret rug plan');
    expect(JSON.parse(answered).data).toMatchObject({ commentId: comment.commentId, hidden: true, text: null });
  });
});
