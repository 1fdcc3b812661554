/**
 * Tokens that holders move on chain (#23.3, docs/decisions/0020), end to end on the embedded
 * devnet with the official @x402/fetch client, on SQLite and on PostgreSQL: wallet #5 buys and
 * sends its tokens to #7 with a plain ERC-20 transfer signed with its own key, #7 sells part of
 * them through the API, some come back to #5, which sells before the indexer has seen them —
 * and for every wallet the position equals its balance on chain, custody holds the supply less
 * the positions, and the views say how far the indexer has read. Then the indexer dies mid-way,
 * the service restarts on the same data, and nothing is booked twice.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createPublicClient, createWalletClient, erc20Abi, http, type Hex } from 'viem';
import type { PrivateKeyAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ViemTransferLogReader } from '../../src/adapters/chain/viem/viem-transfer-log-reader.js';
import { MikroOrmUnitOfWork } from '../../src/adapters/persistence/mikro-orm/mikro-orm-unit-of-work.js';
import { startService, type RunningService } from '../../src/bootstrap/compose.js';
import type { Config } from '../../src/bootstrap/config/config.js';
import { TransferIndexer, type TransferIndexerDeps } from '../../src/app/workers/transfer-indexer.js';
import { formatTokens, parseTokens, parseUsd } from '../../src/domain/money.js';
import { TESTNET } from '../../src/domain/network.js';
import type { UnitOfWork } from '../../src/ports/unit-of-work.js';
import { signedSellBody } from '../support/onchain.js';
import { dropSchema, POSTGRES_URL } from '../support/postgres.js';
import { withoutServices } from '../support/services.js';
import { devnetConfig, json, ShiftableClock } from '../support/service.js';
import { devAccount, payingFetch } from '../support/x402-client.js';

const CUSTODY = '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266';
const SUPPLY = 1_000_000_000n * 10n ** 18n;
const silent = { debug() {}, info() {}, warn() {}, error() {} };
const signedUsd = (v: string) => (v.startsWith('-') ? -parseUsd(v.slice(1)) : parseUsd(v));

const databases: [string, () => Promise<{ url: string; cleanup: () => Promise<void> }>][] = [
  [
    'SQLite',
    async () => {
      const dir = mkdtempSync(join(tmpdir(), 'launchpad-transfers-'));
      return { url: `sqlite:${join(dir, 'service.db')}`, cleanup: async () => rmSync(dir, { recursive: true, force: true }) };
    },
  ],
  [
    'PostgreSQL',
    async () => {
      const schema = `transfers_${randomBytes(5).toString('hex')}`;
      return { url: `${POSTGRES_URL}?schema=${schema}`, cleanup: () => dropSchema(schema) };
    },
  ],
];

interface PositionItem {
  tokenId: string;
  balance: string;
  onChainBalance: string | null;
  costBasisUsd: string;
  realizedPnlUsd: string;
}

describe.each(withoutServices(databases))('tokens moved between wallets on chain, on %s', (_name, openStore) => {
  const clock = new ShiftableClock();
  const dataDir = mkdtempSync(join(tmpdir(), 'launchpad-transfers-devnet-'));
  let config: Config;
  let url: string;
  let cleanup: () => Promise<void>;
  let uow: UnitOfWork;
  let service: RunningService;

  const start = async () => {
    uow = await MikroOrmUnitOfWork.open({ url });
    service = await startService(config, { ports: { clock, uow } });
  };

  beforeAll(async () => {
    ({ url, cleanup } = await openStore());
    config = await devnetConfig(dataDir, {
      DEVNET_IDLE_BLOCK_SECONDS: '0',
    });
    await start();
  }, 60_000);

  afterAll(async () => {
    await service?.stop();
    await cleanup?.();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const rpcUrl = () => service.devnet!.chains[TESTNET].rpcUrl;
  const chain = () => createPublicClient({ transport: http(rpcUrl()) });
  const balanceOf = (token: string, wallet: string) =>
    chain().readContract({ address: token as Hex, abi: erc20Abi, functionName: 'balanceOf', args: [wallet as Hex] });

  async function drain(passes = 4) {
    for (let i = 0; i < passes; i++) {
      clock.offsetMs += 31_000;
      await service.runWorkers();
    }
  }

  const call = (path: string, body: unknown, account: PrivateKeyAccount) =>
    payingFetch(account)(`${service.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-wallet-address': account.address },
      body: JSON.stringify(body),
    });

  async function launch(account: PrivateKeyAccount, symbol: string) {
    return (await json(await call('/tokens', { name: `Moved ${symbol}`, symbol }, account))).data as { tokenId: string; address: string };
  }

  async function buy(account: PrivateKeyAccount, tokenId: string, usdAmount: string) {
    const res = await call('/entrypoints/token_buy_usd', { tokenId, usdAmount }, account);
    expect(res.status).toBe(200);
  }

  async function sell(account: PrivateKeyAccount, tokenId: string, tokens: bigint) {
    const res = await call('/entrypoints/token_sell', await signedSellBody(service.url, account, tokenId, formatTokens(tokens)), account);
    const body = await json(res);
    expect(res.status, JSON.stringify(body)).toBe(200);
    return body.data as { usdReceived: string; position: { balance: string } };
  }

  /** A plain ERC-20 transfer, signed with the wallet's own devnet key, as any wallet app sends it. */
  async function send(from: PrivateKeyAccount, token: string, to: string, amount: bigint) {
    const wallet = createWalletClient({ account: from, transport: http(rpcUrl()) });
    const hash = await wallet.writeContract({ chain: null, address: token as Hex, abi: erc20Abi, functionName: 'transfer', args: [to as Hex, amount] });
    expect((await chain().waitForTransactionReceipt({ hash })).status).toBe('success');
  }

  async function positionsOf(account: PrivateKeyAccount) {
    return (await json(await fetch(`${service.url}/positions?wallet=${account.address}&network=${TESTNET}`))).data as {
      items: PositionItem[];
      indexer: { indexedBlock: string | null; headBlock: string | null; lagBlocks: string | null; caughtUp: boolean };
    };
  }

  const positionOf = async (account: PrivateKeyAccount, tokenId: string) => (await positionsOf(account)).items.find((i) => i.tokenId === tokenId);

  /** For every wallet: position = balance on chain (the API's `onChainBalance` too); custody = supply − Σ positions. */
  async function booksEqualChain(token: { tokenId: string; address: string }, wallets: PrivateKeyAccount[]) {
    let sum = 0n;
    for (const w of wallets) {
      const p = await positionOf(w, token.tokenId);
      const onChain = await balanceOf(token.address, w.address);
      expect({ wallet: w.address, balance: p?.balance ?? '0' }).toEqual({ wallet: w.address, balance: formatTokens(onChain) });
      if (p) expect(p.onChainBalance).toBe(p.balance);
      sum += parseTokens(p?.balance ?? '0');
    }
    expect(await balanceOf(token.address, CUSTODY)).toBe(SUPPLY - sum);
    const holders = (await json(await fetch(`${service.url}/api/tokens/${token.tokenId}/holders?limit=100`))).data as { items: { wallet: string; balance: string }[] };
    for (const h of holders.items) expect(h.balance).toBe(formatTokens(await balanceOf(token.address, h.wallet)));
    expect(holders.items.reduce((s, h) => s + parseTokens(h.balance), 0n)).toBe(sum);
  }

  const transferEvents = async (tokenId: string) =>
    (await uow.run((s) => s.events.readAfter(0, { tokenId }, 1_000))).filter((e) => e.type === 'position.transferred');

  it('#5 buys and sends its tokens to #7, #7 sells part of them, some come back to #5 and it sells them before the indexer saw them: every position equals the chain', async () => {
    const [w5, w6, w7] = [devAccount(5), devAccount(6), devAccount(7)];
    const token = await launch(w5, 'XFR');
    await buy(w5, token.tokenId, '30');
    await buy(w6, token.tokenId, '5');
    await drain(); // deployed, delivered
    const held = await balanceOf(token.address, w5.address);
    const bought = (await positionOf(w5, token.tokenId))!;
    expect(bought.balance).toBe(formatTokens(held));

    await send(w5, token.address, w7.address, held);
    // Before the indexer: the API shows the ledger beside the chain, and how far it has read.
    const before = await positionsOf(w5);
    expect(before.items[0]).toMatchObject({ balance: formatTokens(held), onChainBalance: '0' });
    const head = await chain().getBlockNumber({ cacheTime: 0 });
    expect(BigInt(before.indexer.indexedBlock!)).toBeLessThan(head);

    await drain(1);
    const after5 = await positionsOf(w5);
    expect(after5.indexer).toMatchObject({ indexedBlock: head.toString(), caughtUp: true });
    expect(after5.items[0]).toMatchObject({ balance: '0', onChainBalance: '0', costBasisUsd: '0' });
    // The cost basis went with the tokens: #7 holds what #5 paid.
    const got7 = (await positionOf(w7, token.tokenId))!;
    expect(got7).toMatchObject({ balance: formatTokens(held), onChainBalance: formatTokens(held), costBasisUsd: bought.costBasisUsd, realizedPnlUsd: '0' });
    await booksEqualChain(token, [w5, w6, w7]);

    // #7 sells a third through the API, from the position the indexer booked.
    const third = held / 3n;
    const sold = await sell(w7, token.tokenId, third);
    expect(sold.position.balance).toBe(formatTokens(held - third));
    const after7 = (await positionOf(w7, token.tokenId))!;
    // Its realized PnL is its proceeds less the basis it received for those tokens, not the proceeds whole.
    expect(signedUsd(after7.realizedPnlUsd)).toBeLessThan(parseUsd(sold.usdReceived));

    // A quarter of the rest goes back to #5, which sells half of it before the indexer has read the transfer.
    const back = (held - third) / 4n;
    await send(w7, token.address, w5.address, back);
    await sell(w5, token.tokenId, back / 2n);
    await drain();
    await booksEqualChain(token, [w5, w6, w7]);
    expect(await transferEvents(token.tokenId)).toHaveLength(2);
    const p5 = (await positionOf(w5, token.tokenId))!;
    expect(p5.balance).toBe(formatTokens(back - back / 2n));
  }, 120_000);

  it('the indexer dies mid-way and the service restarts on the same data: it resumes from its cursor and books nothing twice', async () => {
    const [w6, w7, w8] = [devAccount(6), devAccount(7), devAccount(8)];
    const token = await launch(w6, 'RST');
    await buy(w6, token.tokenId, '20');
    await drain();
    const held = await balanceOf(token.address, w6.address);
    for (const to of [w7, w8, w7, w8]) await send(w6, token.address, to.address, held / 10n); // four blocks

    // Another process's indexer: dies inside its second step (rolled back), after its first committed.
    const crashing = (over: Partial<TransferIndexerDeps>) =>
      new TransferIndexer({
        uow,
        clock,
        logger: silent,
        chain: new ViemTransferLogReader({ rpcUrls: { [TESTNET]: rpcUrl() } }),
        networks: [TESTNET],
        custody: () => CUSTODY,
        confirmations: 0,
        blockRange: 1,
        ...over,
      });
    let steps = 0;
    await crashing({
      beforeCommit: async () => {
        if ((steps += 1) === 2) throw new Error('killed mid-step');
      },
    }).runOnce();
    expect(await transferEvents(token.tokenId)).toHaveLength(1);

    await service.stop();
    await start(); // the same database, the same devnet state
    await drain(2);
    expect(await transferEvents(token.tokenId)).toHaveLength(4);
    expect(await uow.run((s) => s.transfers.bookedSince(TESTNET, 0n)).then((all) => all.filter((t) => t.tokenId === token.tokenId))).toHaveLength(4);
    await booksEqualChain(token, [w6, w7, w8]);
    // A sell after the restart is booked against the indexed position.
    const p7 = parseTokens((await positionOf(w7, token.tokenId))!.balance);
    await sell(w7, token.tokenId, p7 / 2n);
    await drain(1);
    await booksEqualChain(token, [w6, w7, w8]);
  }, 180_000);
});
