/**
 * The transfer indexer over fakes (docs/decisions/0020): launched tokens that holders move on
 * the (fake) chain end up in the positions — the sender's average cost with them, the receiver
 * able to sell them — whether the indexer reads a transfer before or after the receiver sells;
 * the service's own transfers are never counted twice; a crash at any point, a second indexer,
 * a reorganisation or a pass that reads the same blocks again books nothing twice.
 */
import { describe, expect, it } from 'vitest';
import { FakeTransferLogReader } from '../../src/adapters/chain/fake/fake-transfer-log-reader.js';
import { FakeTokenIssuer } from '../../src/adapters/token/fake/fake-token-issuer.js';
import { buyToken, planBuy } from '../../src/app/trading/buy-token.js';
import { createToken } from '../../src/app/tokens/create-token.js';
import { listHolders } from '../../src/app/tokens/list-holders.js';
import { listPositions } from '../../src/app/trading/list-positions.js';
import { sellToken } from '../../src/app/trading/sell-token.js';
import { TransferIndexer, type TransferIndexerDeps } from '../../src/app/workers/transfer-indexer.js';
import { BURN_ADDRESS } from '../../src/domain/graduation.js';
import { formatTokens, parseUsd } from '../../src/domain/money.js';
import { ALL_NETWORKS, TESTNET } from '../../src/domain/network.js';
import { validateTokenMetadata } from '../../src/domain/token.js';
import { makeDeps } from '../support/app-harness.js';
import { settleTokens, signSell } from '../support/onchain.js';
import { devAccount } from '../support/x402-client.js';

const [W5, W6, W7] = [devAccount(5).address, devAccount(6).address, devAccount(7).address];
const SUPPLY = 1_000_000_000n * 10n ** 18n;

interface Logged {
  level: string;
  message: string;
  fields?: Record<string, unknown>;
}

function world() {
  const base = makeDeps();
  const chain = new FakeTransferLogReader();
  const tokenIssuer = new FakeTokenIssuer({ clock: base.clock, onTransfer: (t) => chain.record(t) });
  const deps = { ...base, tokenIssuer };
  const logs: Logged[] = [];
  const logger = Object.fromEntries(
    ['debug', 'info', 'warn', 'error'].map((level) => [level, (message: string, fields?: Record<string, unknown>) => logs.push({ level, message, ...(fields ? { fields } : {}) })]),
  ) as unknown as TransferIndexerDeps['logger'];
  const pairs = new Map<string, string>();
  const indexer = (over: Partial<TransferIndexerDeps> = {}) =>
    new TransferIndexer({
      uow: deps.uow,
      clock: deps.clock,
      logger,
      chain,
      networks: ALL_NETWORKS,
      custody: (n) => tokenIssuer.custody(n),
      pairOf: async (_n, token) => pairs.get(token.toLowerCase()) ?? null,
      confirmations: 0,
      blockRange: 1_000,
      ...over,
    });

  async function launch(symbol: string) {
    const t = await createToken(deps, { metadata: validateTokenMetadata({ name: `${symbol} coin`, symbol }), creator: W5, network: TESTNET });
    return t;
  }
  async function buy(tokenId: string, wallet: string, usd: string) {
    const plan = await planBuy(deps, { kind: 'usd', tokenId, usdAmount: parseUsd(usd) }, TESTNET);
    const r = await buyToken(deps, { plan, buyer: wallet, network: TESTNET });
    await settleTokens(deps);
    return r;
  }
  async function sell(tokenId: string, wallet: string, tokens: bigint) {
    const t = (await deps.uow.run((s) => s.tokens.get(tokenId)))!;
    const authorization = await signSell({
      wallet,
      token: { network: TESTNET, address: t.address!, name: t.name },
      custody: tokenIssuer.custody(TESTNET),
      tokens,
      now: deps.clock.now(),
    });
    return sellToken(deps, { tokenId, tokens, seller: wallet, network: TESTNET, authorization });
  }
  const addressOf = async (tokenId: string) => (await deps.uow.run((s) => s.tokens.get(tokenId)))!.address!;
  const onChain = async (tokenId: string, wallet: string) => tokenIssuer.balanceOf(TESTNET, await addressOf(tokenId), wallet);
  const position = (tokenId: string, wallet: string) => deps.uow.run((s) => s.positions.get(TESTNET, wallet, tokenId));
  async function transfer(tokenId: string, from: string, to: string, amount: bigint) {
    tokenIssuer.holderTransfer(TESTNET, await addressOf(tokenId), from, to, amount);
  }
  /** For every wallet that ever held the token: its position = its balance on chain; custody = supply − Σ positions. */
  async function booksEqualChain(tokenId: string, wallets: string[]) {
    let sum = 0n;
    for (const w of wallets) {
      const p = await position(tokenId, w);
      expect({ wallet: w, balance: p?.balance ?? 0n }).toEqual({ wallet: w, balance: await onChain(tokenId, w) });
      sum += p?.balance ?? 0n;
    }
    expect(await onChain(tokenId, tokenIssuer.custody(TESTNET))).toBe(SUPPLY - sum);
  }
  return { deps, chain, tokenIssuer, logs, pairs, indexer, launch, buy, sell, transfer, onChain, position, booksEqualChain, addressOf };
}

describe('the transfer indexer', () => {
  it('moves a transfer between wallets into positions with its cost basis, and says so in the views and the event log', async () => {
    const w = world();
    const t = await w.launch('MOVE');
    await w.buy(t.tokenId, W5, '100');
    const bought = (await w.position(t.tokenId, W5))!;
    const third = bought.balance / 3n;
    await w.transfer(t.tokenId, W5, W7, third);
    // Before the indexer: the books still show the tokens at #5.
    expect((await w.position(t.tokenId, W7))?.balance ?? 0n).toBe(0n);

    expect(await w.indexer().runOnce()).toBe(1);
    const [p5, p7] = [(await w.position(t.tokenId, W5))!, (await w.position(t.tokenId, W7))!];
    expect(p7).toMatchObject({ balance: third, costBasisUsd: (bought.costBasisUsd * third) / bought.balance, realizedPnlUsd: 0n });
    expect(p5).toMatchObject({ balance: bought.balance - third, costBasisUsd: bought.costBasisUsd - p7.costBasisUsd, realizedPnlUsd: 0n });
    await w.booksEqualChain(t.tokenId, [W5, W7]);

    const events = w.deps.uow.db.events.filter((e) => e.type === 'position.transferred');
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ network: TESTNET, tokenId: t.tokenId, data: { from: W5, to: W7, amount: formatTokens(third), booking: 'move' } });

    const head = await w.chain.head(TESTNET);
    const positions = await listPositions(w.deps, { wallet: W7, network: TESTNET });
    expect(positions.items[0]).toMatchObject({ balance: formatTokens(third), onChainBalance: formatTokens(third) });
    expect(positions.indexer).toMatchObject({ network: TESTNET, indexedBlock: head.toString(), headBlock: head.toString(), lagBlocks: '0', confirmations: 0, caughtUp: true });
    const holders = await listHolders(w.deps, t.tokenId, 10);
    expect(holders.items.map((h) => [h.wallet, h.balance])).toEqual([
      [W5, formatTokens(bought.balance - third)],
      [W7, formatTokens(third)],
    ]);
    expect(holders.indexer.indexedBlock).toBe(head.toString());
  });

  it('the receiver sells what it received — booked before or after its sell — and every position ends equal to the chain', async () => {
    const w = world();
    const t = await w.launch('RECV');
    await w.buy(t.tokenId, W5, '50');
    const all = (await w.position(t.tokenId, W5))!.balance;
    await w.transfer(t.tokenId, W5, W7, all);
    // #7 sells before the indexer saw the transfer: the tokens enter at cost 0 and are remembered.
    await w.sell(t.tokenId, W7, all / 4n);
    expect(await w.position(t.tokenId, W7)).toMatchObject({ balance: 0n, prebookedIn: all / 4n });
    await w.indexer().runOnce();
    await w.booksEqualChain(t.tokenId, [W5, W7]);
    // #7 sells again, after the indexer booked the rest: from its booked position, at its basis.
    const before = (await w.position(t.tokenId, W7))!;
    const sold = await w.sell(t.tokenId, W7, all / 4n);
    expect(sold.position.balance).toBe(formatTokens(before.balance - all / 4n));
    await w.indexer().runOnce();
    await w.booksEqualChain(t.tokenId, [W5, W7]);
    const p7 = (await w.position(t.tokenId, W7))!;
    expect(p7.prebookedIn).toBe(0n);
    // #5's basis went with the tokens; #7's realized PnL is proceeds less that basis, not the whole proceeds.
    expect((await w.position(t.tokenId, W5))!.costBasisUsd).toBe(0n);
    expect(p7.costBasisUsd + p7.realizedPnlUsd).toBeLessThan(parseUsd('50'));
  });

  it('books none of the service’s own transfers: the mint, deliveries, pulls; a wallet’s own transfer to custody leaves its position', async () => {
    const w = world();
    const t = await w.launch('OWN');
    await w.buy(t.tokenId, W5, '20');
    await w.buy(t.tokenId, W6, '10');
    const p5 = (await w.position(t.tokenId, W5))!;
    await w.sell(t.tokenId, W5, p5.balance / 2n); // a pull into custody, booked by the sell
    expect(await w.indexer().runOnce()).toBe(0);
    await w.booksEqualChain(t.tokenId, [W5, W6]);
    const custody = w.tokenIssuer.custody(TESTNET);
    const p6 = (await w.position(t.tokenId, W6))!;
    await w.transfer(t.tokenId, W6, custody, p6.balance / 2n); // not a pull: #6 gave them away
    expect(await w.indexer().runOnce()).toBe(1);
    expect(await w.position(t.tokenId, W6)).toMatchObject({ balance: p6.balance - p6.balance / 2n, realizedPnlUsd: 0n });
    await w.booksEqualChain(t.tokenId, [W5, W6]);
    expect(await w.deps.uow.run((s) => s.positions.get(TESTNET, custody, t.tokenId))).toBeNull();
  });

  it('the pool pair and the burn address never hold a position: tokens leave to them at average cost and come from the pool at cost 0', async () => {
    const w = world();
    const t = await w.launch('POOL');
    const address = await w.addressOf(t.tokenId);
    const pair = '0x00000000000000000000000000000000000000Fa';
    w.pairs.set(address.toLowerCase(), pair); // a pair that exists on chain (created before graduation)
    await w.buy(t.tokenId, W5, '40');
    const p5 = (await w.position(t.tokenId, W5))!;
    const quarter = p5.balance / 4n;
    await w.transfer(t.tokenId, W5, pair, quarter);
    await w.transfer(t.tokenId, W5, BURN_ADDRESS, quarter);
    await w.transfer(t.tokenId, pair, W7, p5.balance / 8n); // #7 buys straight from the pool
    expect(await w.indexer().runOnce()).toBe(3);
    // Each quarter left with floor(basis · quarter / balance): what stays keeps its average cost.
    const first = (p5.costBasisUsd * quarter) / p5.balance;
    const second = ((p5.costBasisUsd - first) * quarter) / (p5.balance - quarter);
    expect(await w.position(t.tokenId, W5)).toMatchObject({ balance: p5.balance - 2n * quarter, costBasisUsd: p5.costBasisUsd - first - second, realizedPnlUsd: 0n });
    expect(await w.position(t.tokenId, W7)).toMatchObject({ balance: p5.balance / 8n, costBasisUsd: 0n });
    for (const nobody of [pair, BURN_ADDRESS]) expect(await w.position(t.tokenId, nobody)).toBeNull();
    for (const wallet of [W5, W7]) expect((await w.position(t.tokenId, wallet))!.balance).toBe(await w.onChain(t.tokenId, wallet));
  });

  it('a crash inside a step books nothing; a restart resumes from the cursor; running twice books nothing twice', async () => {
    const w = world();
    const t = await w.launch('CRASH');
    await w.buy(t.tokenId, W5, '30');
    const p5 = (await w.position(t.tokenId, W5))!;
    for (let i = 0; i < 6; i++) await w.transfer(t.tokenId, i % 2 ? W7 : W5, i % 2 ? W5 : W7, p5.balance / 10n); // one block each
    // Dies inside its first step's transaction, after booking, before the cursor moved.
    const dying = w.indexer({ blockRange: 2, beforeCommit: async () => Promise.reject(new Error('killed')) });
    expect(await dying.runOnce()).toBe(0);
    expect(w.deps.uow.db.bookedTransfers.size).toBe(0);
    expect((await w.position(t.tokenId, W7))?.balance ?? 0n).toBe(0n);
    // Dies right after its first committed step: the next process starts from that cursor.
    let steps = 0;
    const stopping = w.indexer({
      blockRange: 2,
      afterStep: async () => {
        if ((steps += 1) === 2) throw new Error('killed');
      },
    });
    await stopping.runOnce();
    const cursor = (await w.deps.uow.run((s) => s.transfers.cursor(TESTNET)))!;
    expect(cursor.blockNumber).toBeLessThan(await w.chain.head(TESTNET));
    expect(w.deps.uow.db.bookedTransfers.size).toBeGreaterThan(0);
    expect(w.deps.uow.db.bookedTransfers.size).toBeLessThan(6);
    await w.indexer({ blockRange: 2 }).runOnce();
    await w.indexer().runOnce();
    expect(w.deps.uow.db.bookedTransfers.size).toBe(6);
    expect(w.deps.uow.db.events.filter((e) => e.type === 'position.transferred')).toHaveLength(6);
    await w.booksEqualChain(t.tokenId, [W5, W7]);
    // Read again from the start (a cursor restored from an old backup): the same logs are recognised.
    await w.deps.uow.run(async (s) => {
      const now = (await s.transfers.cursor(TESTNET))!;
      await s.transfers.advance({ ...now, blockNumber: 0n, blockHash: null }, now.blockNumber);
    });
    expect(await w.indexer().runOnce()).toBe(0);
    await w.booksEqualChain(t.tokenId, [W5, W7]);
  });

  it('two indexers at once (two processes) book each transfer once', async () => {
    const w = world();
    const t = await w.launch('TWO');
    await w.buy(t.tokenId, W5, '30');
    const p5 = (await w.position(t.tokenId, W5))!;
    for (let i = 0; i < 4; i++) await w.transfer(t.tokenId, W5, W7, p5.balance / 10n);
    const [a, b] = [w.indexer({ blockRange: 1 }), w.indexer({ blockRange: 1 })];
    const booked = await Promise.all([a.runOnce(), b.runOnce(), a.runOnce(), b.runOnce()]);
    expect(booked.reduce((x, y) => x + y, 0)).toBe(4);
    await w.booksEqualChain(t.tokenId, [W5, W7]);
  });

  it('stays `confirmations` blocks below the head, and says how far behind it is', async () => {
    const w = world();
    const t = await w.launch('CONF');
    await w.buy(t.tokenId, W5, '10');
    const p5 = (await w.position(t.tokenId, W5))!;
    await w.transfer(t.tokenId, W5, W7, 1_000n);
    const indexer = w.indexer({ confirmations: 2 });
    expect(await indexer.runOnce()).toBe(0);
    const waiting = await listPositions(w.deps, { wallet: W7, network: TESTNET });
    expect(waiting.indexer).toMatchObject({ lagBlocks: '2', confirmations: 2, caughtUp: true });
    w.chain.mine(TESTNET);
    w.chain.mine(TESTNET);
    expect(await indexer.runOnce()).toBe(1);
    expect((await w.position(t.tokenId, W7))!.balance).toBe(1_000n);
    expect((await w.position(t.tokenId, W5))!.balance).toBe(p5.balance - 1_000n);
  });

  it('a reorganisation: a transfer mined again in another block is not booked twice; one the new chain lacks is reported', async () => {
    const w = world();
    const t = await w.launch('REORG');
    await w.buy(t.tokenId, W5, '10');
    const address = await w.addressOf(t.tokenId);
    await w.transfer(t.tokenId, W5, W7, 100n);
    await w.transfer(t.tokenId, W5, W6, 7n);
    await w.indexer().runOnce();
    const [moved, lost] = w.chain.logs(TESTNET).slice(-2);
    // The last two blocks are replaced, and the chain grows past them: the first transfer is mined
    // again, later and beside another, the second is gone.
    w.chain.reorg(TESTNET, 2, [[], [], [{ token: address, from: W6, to: W5, amount: 1n, txHash: '0x' + 'ee'.repeat(32) }, { token: address, from: W5, to: W7, amount: 100n, txHash: moved!.txHash }]]);
    expect(await w.indexer().runOnce()).toBe(1); // only the new transfer
    expect((await w.position(t.tokenId, W7))!.balance).toBe(100n);
    expect(w.logs.some((l) => l.level === 'warn' && /no longer has the last indexed block/.test(l.message))).toBe(true);
    const reported = w.logs.find((l) => l.level === 'error');
    expect(reported?.fields?.transfers).toEqual([expect.objectContaining({ txHash: lost!.txHash, amount: '7' })]);
  });

  it('a chain restored from an older state, shorter than the cursor: the transfers it mines again are not booked twice', async () => {
    const w = world();
    const t = await w.launch('SHORT');
    await w.buy(t.tokenId, W5, '10');
    const address = await w.addressOf(t.tokenId);
    await w.transfer(t.tokenId, W5, W7, 11n);
    await w.transfer(t.tokenId, W5, W7, 12n);
    for (let i = 0; i < 3; i++) w.chain.mine(TESTNET);
    expect(await w.indexer().runOnce()).toBe(2);
    const [first, second] = w.chain.logs(TESTNET).slice(-2);
    // The saved state ended before both transfers; the journal replays them, one block each.
    w.chain.reorg(TESTNET, 5, [[{ token: address, from: W5, to: W7, amount: 11n, txHash: first!.txHash }], [{ token: address, from: W5, to: W7, amount: 12n, txHash: second!.txHash }]], true);
    expect(await w.chain.head(TESTNET)).toBeLessThan((await w.deps.uow.run((s) => s.transfers.cursor(TESTNET)))!.blockNumber);
    expect(await w.indexer().runOnce()).toBe(0);
    expect(w.logs.filter((l) => l.level === 'error')).toEqual([]);
    expect((await w.position(t.tokenId, W7))!.balance).toBe(23n);
    w.chain.mine(TESTNET);
    expect(await w.indexer().runOnce()).toBe(0);
    expect((await w.deps.uow.run((s) => s.transfers.cursor(TESTNET)))!.blockNumber).toBe(await w.chain.head(TESTNET));
  });

  it('starts just below the network’s first deployment, and at the head when nothing is deployed', async () => {
    const w = world();
    for (let i = 0; i < 5; i++) w.chain.mine(TESTNET);
    await w.indexer().runOnce();
    expect((await w.deps.uow.run((s) => s.transfers.cursor(TESTNET)))!.blockNumber).toBe(await w.chain.head(TESTNET));

    const later = world();
    for (let i = 0; i < 5; i++) later.chain.mine(TESTNET);
    const t = await later.launch('LATE');
    await later.buy(t.tokenId, W5, '10');
    await later.transfer(t.tokenId, W5, W7, 5n);
    // The deployment's block is known to the books: the history starts there.
    const deployedAt = later.chain.logs(TESTNET).find((l) => l.from === '0x0000000000000000000000000000000000000000')!.blockNumber;
    await later.deps.uow.transaction(async (s) => {
      const token = (await s.tokens.get(t.tokenId))!;
      await s.tokens.update({ ...token, deployment: { ...token.deployment, blockNumber: deployedAt } });
    });
    const started: bigint[] = [];
    await later.indexer({ afterStep: async (step) => void started.push(step.fromBlock) }).runOnce();
    expect(started[0]).toBe(deployedAt);
    expect((await later.position(t.tokenId, W7))!.balance).toBe(5n);
  });

  it('an RPC that does not answer: nothing moves, and the next pass catches up', async () => {
    const w = world();
    const t = await w.launch('DOWN');
    await w.buy(t.tokenId, W5, '10');
    await w.transfer(t.tokenId, W5, W7, 9n);
    w.chain.offline = true;
    expect(await w.indexer().runOnce()).toBe(0);
    expect(w.logs.some((l) => l.level === 'warn' && /will retry/.test(l.message))).toBe(true);
    w.chain.offline = false;
    expect(await w.indexer().runOnce()).toBe(1);
    await w.booksEqualChain(t.tokenId, [W5, W7]);
  });
});
