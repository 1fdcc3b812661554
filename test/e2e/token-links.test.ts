/** A token's links and platform referrer, named at creation, and its metadata document. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningService } from '../../src/bootstrap/compose.js';
import { devAccount, payingFetch } from '../support/x402-client.js';
import { json, startTestService } from '../support/service.js';

const wallet = devAccount(5);
const PLATFORM = '0xa0Ee7A142d267C1f36714E4a8F75612F20a79720';
let service: RunningService;
beforeAll(async () => {
  service = await startTestService();
});
afterAll(async () => {
  await service.stop();
});

const create = (body: Record<string, unknown>, pay = true) =>
  (pay ? payingFetch(wallet) : fetch)(`${service.url}/tokens`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-wallet-address': wallet.address },
    body: JSON.stringify(body),
  });

describe('token links and metadata', () => {
  it('keeps a site, an X handle and a Telegram username (any of their usual forms) and the platform referrer', async () => {
    const res = await create({
      name: 'Linked',
      symbol: 'LNK',
      imageUrl: 'https://example.com/lnk.png',
      website: 'https://linked.example',
      twitter: 'https://twitter.com/linked_token/',
      telegram: '@linkedchat',
      platformReferrer: PLATFORM.toLowerCase(),
    });
    expect(res.status).toBe(201);
    const token = (await json(res)).data;
    const links = { website: 'https://linked.example/', twitter: 'https://x.com/linked_token', telegram: 'https://t.me/linkedchat' };
    expect(token).toMatchObject({ links, platformReferrer: PLATFORM });
    expect((await json(await fetch(`${service.url}/tokens/${token.tokenId}`))).data).toMatchObject({ links, platformReferrer: PLATFORM });

    const doc = await fetch(`${service.url}/api/tokens/${token.tokenId}/metadata.json`);
    expect(doc.status).toBe(200);
    expect(doc.headers.get('cache-control')).toBe('public, max-age=60');
    expect(await doc.json()).toEqual({
      name: 'Linked',
      symbol: 'LNK',
      description: '',
      image: 'https://example.com/lnk.png',
      external_url: 'https://linked.example/',
      decimals: 18,
      chainId: 84532,
      address: token.address,
      links,
    });
  });

  it('a creator naming itself as platform referrer names nobody; no links is all nulls', async () => {
    const token = (await json(await create({ name: 'Plain', symbol: 'PLN', platformReferrer: wallet.address }))).data;
    expect(token).toMatchObject({ links: { website: null, twitter: null, telegram: null }, platformReferrer: null });
  });

  it('refuses links that are not what they say, each named, before any payment', async () => {
    const res = await create({ name: 'Bad', symbol: 'BAD', website: 'http://insecure.example', twitter: 'https://facebook.com/x', telegram: 'ab', platformReferrer: '0x0000000000000000000000000000000000000000' }, false);
    expect(res.status).toBe(400);
    const body = await json(res);
    expect(body.error.code).toBe('VALIDATION_ERROR');
    const badZero = await create({ name: 'Bad', symbol: 'BAD', website: 'http://insecure.example', twitter: 'https://facebook.com/x', telegram: 'ab' }, false);
    const issues = (await json(badZero)).error.details.issues.map((i: { path: string }) => i.path);
    expect(issues).toEqual(['website', 'twitter', 'telegram']);
    expect(JSON.stringify(body.error.details)).toMatch(/platformReferrer/);
  });

  it('refuses, before any 402, an image or site on a non-public host and a symbol that is only A-Z once upper-cased', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ imageUrl: 'https://127.0.0.1/a.png' }, 'imageUrl'],
      [{ imageUrl: 'https://[::1]/a.png' }, 'imageUrl'],
      [{ imageUrl: 'https://2130706433/a.png' }, 'imageUrl'],
      [{ imageUrl: 'https://0x7f.1/a.png' }, 'imageUrl'],
      [{ imageUrl: 'https://192.168.1.20/cam.jpg' }, 'imageUrl'],
      [{ imageUrl: 'https://[::ffff:10.0.0.1]/a.png' }, 'imageUrl'],
      [{ website: 'https://localhost:8080/' }, 'website'],
      [{ symbol: 'ßS' }, 'symbol'],
      [{ symbol: 'pı' }, 'symbol'],
    ];
    for (const [fields, path] of cases) {
      // The paying client would pay a 402: a 400 here means nothing was asked for.
      const res = await create({ name: 'Bad', symbol: 'BAD', ...fields }, true);
      expect(res.status, JSON.stringify(fields)).toBe(400);
      expect((await json(res)).error.details.issues, JSON.stringify(fields)).toEqual([{ path, message: expect.any(String) }]);
    }
  });

  it('a metadata document of an unknown token is the usual 404 envelope', async () => {
    const res = await fetch(`${service.url}/api/tokens/tok_00000000000000000000000000/metadata.json`);
    expect(res.status).toBe(404);
    expect((await json(res)).error.code).toBe('TOKEN_NOT_FOUND');
  });

  it('earnings and creators answer bad input with the validation envelope, and an unknown wallet with nothing earned', async () => {
    const bad = await fetch(`${service.url}/api/wallets/0x1234/earnings`);
    expect(bad.status).toBe(400);
    expect((await json(bad)).error).toMatchObject({ code: 'VALIDATION_ERROR' });
    const none = (await json(await fetch(`${service.url}/api/wallets/${PLATFORM}/earnings`))).data;
    expect(none).toEqual({ wallet: PLATFORM, accruedUsd: '0', paidUsd: '0', pendingUsd: '0', payoutMinUsd: '1', items: [] });
    const limit = await fetch(`${service.url}/api/creators?sort=earnings&limit=0`);
    expect(limit.status).toBe(400);
    const sort = await fetch(`${service.url}/api/creators?sort=volume`);
    expect((await json(sort)).error.code).toBe('VALIDATION_ERROR');
  });
});
