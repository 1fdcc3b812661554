/**
 * A devnet that survives a stop (docs/operations.md, "The devnet's files"; decision 0041): the
 * service as `npm start` runs it takes paid trades, then its whole process group gets SIGTERM after
 * the reader of its output has gone — every state file it leaves is one anvil starts from. Each
 * state file is then torn as an earlier version could tear it (one emptied, one cut mid-string):
 * the next start moves them aside, rebuilds both chains from the transaction journal, says so, and
 * the books equal the chain — and it takes payments again.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createPublicClient, http, type PublicClient } from 'viem';
import { afterAll, describe, expect, it } from 'vitest';
import { stateFileProblem } from '../../src/adapters/chain/anvil/state-file.js';
import { expectBooksEqualChain, TREASURY, usdcOf, waitUntilFinished } from '../support/books.js';
import { signedSellBody } from '../support/onchain.js';
import { serviceProcessEnv, startServiceProcess, type ServiceProcess } from '../support/service-process.js';
import { devAccount, payingFetch } from '../support/x402-client.js';

const WALLETS = [5, 6].map(devAccount);

const cleanups: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const c of cleanups.reverse()) await c().catch(() => undefined);
});

describe('the devnet after a stop', () => {
  it('a SIGTERM to the group with no reader on its output leaves loadable state; torn state files are moved aside and rebuilt from the journal, books = chain', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'launchpad-devnet-state-'));
    cleanups.push(async () => rmSync(dataDir, { recursive: true, force: true }));
    const devnetDir = join(dataDir, 'devnet');
    const databaseUrl = `sqlite:${join(dataDir, 'service.db')}`;
    const { env, devnetPort } = await serviceProcessEnv(dataDir, databaseUrl, { LOG_LEVEL: 'warn', EARNINGS_PAYOUT_MIN_USD: '0.01' });
    let service: ServiceProcess = await startServiceProcess(env);
    cleanups.push(() => service.stop());
    const chain = createPublicClient({ transport: http(`http://127.0.0.1:${devnetPort + 1}`) }) as PublicClient;
    const wallets = WALLETS.map((w) => w.address);
    const usdcBefore = new Map<string, bigint>();
    for (const w of wallets) usdcBefore.set(w, await usdcOf(chain, w));
    const treasuryBefore = await usdcOf(chain, TREASURY);
    const genesis = (await chain.getBlock({ blockNumber: 0n })).hash;
    const call = (wallet: (typeof WALLETS)[number], path: string, body: unknown) =>
      payingFetch(wallet)(`${service.url}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-wallet-address': wallet.address },
        body: JSON.stringify(body),
      });
    const trade = async (w: (typeof WALLETS)[number], i: number) => {
      const created = await call(w, '/tokens', { name: `State ${i}`, symbol: `ST${i}` });
      const tokenId = ((await created.json()) as { data: { tokenId: string } }).data.tokenId;
      expect((await call(w, '/entrypoints/token_buy_usd', { tokenId, usdAmount: '2' })).status).toBe(200);
      await waitUntilFinished(databaseUrl, chain); // delivered: the tokens can be sold
      expect((await call(w, '/entrypoints/token_sell', await signedSellBody(service.url, w, tokenId, '1000'))).status).toBe(200);
      return tokenId;
    };
    await Promise.all(WALLETS.map(trade));
    await waitUntilFinished(databaseUrl, chain);

    // `npm start | …` whose reader has gone, then SIGTERM to the whole group (anvil included).
    service.child.stdout!.destroy();
    service.child.stderr!.destroy();
    process.kill(-service.child.pid!, 'SIGTERM');
    await service.stop();
    const stateFiles = ['anvil-8453.json', 'anvil-84532.json'];
    for (const f of stateFiles) expect({ file: f, problem: stateFileProblem(join(devnetDir, f)) }).toEqual({ file: f, problem: null });

    // Torn as anvil's own in-place write could leave them: emptied, and cut mid-string.
    truncateSync(join(devnetDir, stateFiles[0]!), 0);
    const whole = readFileSync(join(devnetDir, stateFiles[1]!), 'utf8');
    const cut = whole.slice(0, whole.indexOf('"0x', whole.length / 2) + 7);
    writeFileSync(join(devnetDir, stateFiles[1]!), cut);

    service = await startServiceProcess(env);
    for (const [f, chainName] of [
      [stateFiles[0]!, 'eip155:8453'],
      [stateFiles[1]!, 'eip155:84532'],
    ]) {
      expect(service.output()).toMatch(new RegExp(`devnet ${chainName}: \\S*${f} cannot be loaded \\(.*\\): moved aside to \\S*${f}\\.corrupt-\\S+; rebuilding from genesis and the transaction journal`));
    }
    expect(service.output()).toMatch(/devnet eip155:84532: replayed \d+ journaled transaction\(s\) the saved state had lost/);
    // Rebuilt on its own genesis block: the same chain its books were kept on (decision 0066), so the start is not refused.
    expect(service.output()).toContain(`devnet eip155:84532: rebuilding from its own genesis block ${genesis}`);
    expect((await chain.getBlock({ blockNumber: 0n })).hash).toBe(genesis);
    // What was torn is kept, byte for byte.
    const kept = readdirSync(devnetDir).filter((f) => f.includes('.corrupt-'));
    expect(kept.map((f) => f.split('.corrupt-')[0]).sort()).toEqual(stateFiles);
    expect(readFileSync(join(devnetDir, kept.find((f) => f.startsWith(stateFiles[1]!))!), 'utf8')).toBe(cut);

    await waitUntilFinished(databaseUrl, chain);
    await expectBooksEqualChain({ databaseUrl, chain, wallets, usdcBefore, treasuryBefore });
    // The rebuilt chain takes payments (the treasury's nonces line up with what it signed before).
    await trade(WALLETS[0]!, 9);
    await waitUntilFinished(databaseUrl, chain);
    await expectBooksEqualChain({ databaseUrl, chain, wallets, usdcBefore, treasuryBefore });
    await service.stop();
  }, 240_000);
});
