/**
 * The transfer indexer (docs/decisions/0020): follows every launched token's ERC-20 `Transfer`
 * logs, network by network, and books the ones the service's trades did not make into positions,
 * so that once it has caught up every wallet's position equals its balance on chain.
 *
 *   cursor ──read logs of (cursor, min(cursor + range, head − confirmations)]──▶ one transaction:
 *     lock the tokens moved, book each transfer once (unique per transaction and place in it),
 *     move the positions, append `position.transferred`, move the cursor (compare-and-set)
 *
 * The cursor and the bookings commit together, so a crash anywhere re-reads at most one range
 * and books nothing twice; a second process doing the same loses the compare-and-set and rolls
 * back. The cursor keeps its block's hash: when the chain no longer has it (a reorganisation
 * deeper than the confirmations, a devnet restored from an older state) the indexer reads again
 * from `rewindBlocks` below; transactions mined again are recognised and not booked twice, and a
 * booked transfer the new chain lacks is reported, not undone.
 */
import { formatTokens, formatUsd } from '../../domain/money.js';
import type { Network } from '../../domain/network.js';
import { bookingOf, bookTransfer, ZERO_ADDRESS, type TokenTransfer, type TransferBooking } from '../../domain/transfer.js';
import type { Clock } from '../../ports/clock.js';
import type { Logger } from '../../ports/logger.js';
import type { OnChainTokenRef } from '../../ports/token-repository.js';
import type { TransferLogReader } from '../../ports/transfer-log-reader.js';
import type { TransferCursor } from '../../ports/transfer-store.js';
import type { Stores, UnitOfWork } from '../../ports/unit-of-work.js';

/** One range of blocks read and booked in one transaction. */
export interface IndexStep {
  network: Network;
  fromBlock: bigint;
  toBlock: bigint;
  /** Transfers this step booked. */
  booked: number;
}

export interface TransferIndexerDeps {
  uow: UnitOfWork;
  clock: Clock;
  logger: Logger;
  chain: TransferLogReader;
  networks: readonly Network[];
  /** Custody of each network: its transfers are the service's own, booked by trades. */
  custody(network: Network): string;
  /** A token's Uniswap v2 pair on chain, for a pair the books do not know (created before graduation). */
  pairOf?(network: Network, token: string): Promise<string | null>;
  /** The contract that seeds graduation pools on each network (it never holds a position). */
  seeder?(network: Network): string | null;
  /** Blocks the indexer stays below the head: reorganisations shallower than this never reach the books. */
  confirmations: number;
  /** Blocks read (eth_getLogs) and booked per step. */
  blockRange: number;
  /** Steps per network per pass, so one pass stays short while catching up. Default 10. */
  maxStepsPerPass?: number;
  /** How far below the cursor a reorganisation is read again from. Default 128. */
  rewindBlocks?: number;
  /** Test-only: inside a step's transaction, after its bookings and before its cursor moves (throw = crash). */
  beforeCommit?: (step: IndexStep) => Promise<void>;
  /** Test-only: after a step committed. */
  afterStep?: (step: IndexStep) => Promise<void>;
}

interface Booking {
  log: TokenTransfer;
  token: OnChainTokenRef;
  kind: Exclude<TransferBooking, 'none'>;
}

/** Another pass moved the cursor while this one booked: its transaction rolls back. */
class CursorMoved extends Error {}

const same = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();
const max = (a: bigint, b: bigint) => (a > b ? a : b);
const min = (a: bigint, b: bigint) => (a < b ? a : b);
const transferKey = (t: Pick<TokenTransfer, 'txHash' | 'txLogIndex'>) => `${t.txHash.toLowerCase()}|${t.txLogIndex}`;

export class TransferIndexer {
  /** Pairs found on chain, by network and token id: a pair never moves once created. */
  private readonly pairs = new Map<string, string>();

  /**
   * Per network, the head at which this process last found the cursor's block still on chain
   * with nothing left to read: while the head stays there, a pass has nothing to book and the
   * check waits for the head to move (it runs before any step reads past the cursor).
   */
  private readonly checkedAtHead = new Map<Network, { head: bigint; blockHash: string }>();

  constructor(private readonly deps: TransferIndexerDeps) {}

  /** One pass over every network; returns how many transfers it booked. */
  async runOnce(): Promise<number> {
    let booked = 0;
    for (const network of this.deps.networks) {
      if (!this.deps.chain.supports(network)) continue;
      try {
        booked += await this.follow(network);
      } catch (e) {
        this.deps.logger.warn('transfer indexing failed; will retry', { network, error: (e as Error).message });
      }
    }
    return booked;
  }

  private async follow(network: Network): Promise<number> {
    const { chain, uow } = this.deps;
    const head = await chain.head(network);
    const safe = head - BigInt(this.deps.confirmations);
    let cursor = (await uow.run((s) => s.transfers.cursor(network))) ?? (await this.begin(network, safe, head));
    if (!cursor) return 0;
    const caughtUp = cursor.blockNumber >= safe && cursor.headBlock === head;
    const checked = this.checkedAtHead.get(network);
    // The chain has not moved since the last pass found it all read: no RPC, no step (an idle chain).
    if (caughtUp && checked?.head === head && checked.blockHash === cursor.blockHash) return 0;
    const found = cursor;
    cursor = await this.checkReorg(network, cursor, head);
    if (!cursor) return 0;
    if (caughtUp && cursor === found && cursor.blockHash !== null) this.checkedAtHead.set(network, { head, blockHash: cursor.blockHash });
    else this.checkedAtHead.delete(network);
    let booked = 0;
    for (let step = 0; step < (this.deps.maxStepsPerPass ?? 10) && cursor.blockNumber < safe; step++) {
      const fromBlock = cursor.blockNumber + 1n;
      const toBlock = min(safe, cursor.blockNumber + BigInt(this.deps.blockRange));
      // The hash first: a reorganisation after it is seen by the next pass's check.
      const toHash = await chain.blockHash(network, toBlock);
      if (!toHash) break;
      // Tokens not deployed yet are included: a deployment mined before its record is then not missed.
      const tokens = await uow.run((s) => s.tokens.listOnChain(network));
      const logs = tokens.length === 0 ? [] : await chain.transfers(network, tokens.map((t) => t.address), fromBlock, toBlock);
      const pairs = await this.pairsOf(network, tokens, logs);
      const now = this.deps.clock.now();
      const next: TransferCursor = { network, blockNumber: toBlock, blockHash: toHash, headBlock: head, confirmations: this.deps.confirmations, updatedAt: now };
      const from = cursor.blockNumber;
      let count: number;
      try {
        count = await uow.transaction(async (s) => {
          const n = await this.book(s, network, tokens, pairs, logs, now);
          await this.deps.beforeCommit?.({ network, fromBlock, toBlock, booked: n });
          if (!(await s.transfers.advance(next, from))) throw new CursorMoved();
          return n;
        });
      } catch (e) {
        if (e instanceof CursorMoved) return booked; // another process indexes this network now
        throw e;
      }
      booked += count;
      cursor = next;
      await this.deps.afterStep?.({ network, fromBlock, toBlock, booked: count });
    }
    if (cursor.blockNumber >= safe && cursor.headBlock !== head) {
      // Caught up: only the head the view reports moves.
      const seen = { ...cursor, headBlock: head, updatedAt: this.deps.clock.now() };
      await uow.run((s) => s.transfers.advance(seen, cursor!.blockNumber));
    }
    return booked;
  }

  /**
   * The first cursor of a network: just before the first deployment the books know of (so every
   * transfer of every token is read), or the safe head when no token is deployed yet (nothing of
   * theirs can have moved: their first holders get them from deliveries sent after this).
   */
  private async begin(network: Network, safe: bigint, head: bigint): Promise<TransferCursor | null> {
    const tokens = await this.deps.uow.run((s) => s.tokens.listOnChain(network));
    const deployed = tokens.filter((t) => t.deployed);
    let start = max(safe, -1n);
    if (deployed.some((t) => t.deployedBlock === null)) start = -1n;
    else if (deployed.length > 0) start = deployed.reduce((m, t) => min(m, t.deployedBlock! - 1n), start);
    const cursor: TransferCursor = {
      network,
      blockNumber: start,
      blockHash: start >= 0n ? await this.deps.chain.blockHash(network, start) : null,
      headBlock: head,
      confirmations: this.deps.confirmations,
      updatedAt: this.deps.clock.now(),
    };
    const created = await this.deps.uow.run((s) => s.transfers.advance(cursor, null));
    this.deps.logger.info('transfer indexing starts', { network, fromBlock: (start + 1n).toString() });
    return created ? cursor : this.deps.uow.run((s) => s.transfers.cursor(network));
  }

  /** The cursor as it stands, or moved back below a reorganisation (null: another process moved it). */
  private async checkReorg(network: Network, cursor: TransferCursor, head: bigint): Promise<TransferCursor | null> {
    if (cursor.blockHash === null) return cursor;
    const hash = await this.deps.chain.blockHash(network, cursor.blockNumber);
    if (hash !== null && same(hash, cursor.blockHash)) return cursor;
    const top = min(cursor.blockNumber, head); // a chain restored from an older state may be shorter
    const back = max(top - BigInt(this.deps.rewindBlocks ?? 128), -1n);
    const booked = await this.deps.uow.run((s) => s.transfers.bookedSince(network, back + 1n));
    if (booked.length > 0) {
      const tokens = [...new Set(booked.map((b) => b.token))];
      // Up to a range past the old cursor: a transaction may have been mined again in a later block.
      const there = new Set((await this.deps.chain.transfers(network, tokens, back + 1n, min(head, top + BigInt(this.deps.blockRange)))).map(transferKey));
      const lost = booked.filter((b) => !there.has(transferKey(b)));
      if (lost.length > 0) {
        this.deps.logger.error('booked transfers are no longer on chain after a reorganisation; their bookings stay (docs/decisions/0020)', {
          network,
          transfers: lost.map((t) => ({ tokenId: t.tokenId, txHash: t.txHash, from: t.from, to: t.to, amount: t.amount.toString() })),
        });
      }
    }
    this.deps.logger.warn('the chain no longer has the last indexed block; reading again from below it', {
      network,
      indexedBlock: cursor.blockNumber.toString(),
      fromBlock: (back + 1n).toString(),
    });
    const next = {
      ...cursor,
      blockNumber: back,
      blockHash: back >= 0n ? await this.deps.chain.blockHash(network, back) : null,
      headBlock: head,
      updatedAt: this.deps.clock.now(),
    };
    return (await this.deps.uow.run((s) => s.transfers.advance(next, cursor.blockNumber))) ? next : null;
  }

  /** The pair of every token whose logs need it: any log not sent by custody or minted. */
  private async pairsOf(network: Network, tokens: readonly OnChainTokenRef[], logs: readonly TokenTransfer[]): Promise<Map<string, string | null>> {
    const custody = this.deps.custody(network);
    const pairs = new Map<string, string | null>();
    const byAddress = new Map(tokens.map((t) => [t.address.toLowerCase(), t]));
    for (const log of logs) {
      const token = byAddress.get(log.token.toLowerCase());
      if (!token || pairs.has(token.tokenId)) continue;
      const known = token.pair ?? this.pairs.get(`${network}|${token.tokenId}`) ?? null;
      if (known) {
        pairs.set(token.tokenId, known);
        continue;
      }
      // Custody's transfers and the mint book nothing whoever receives them: no need to ask.
      if (same(log.from, custody) || same(log.from, ZERO_ADDRESS) || !this.deps.pairOf) continue;
      const found = await this.deps.pairOf(network, token.address);
      if (found) this.pairs.set(`${network}|${token.tokenId}`, found);
      pairs.set(token.tokenId, found);
    }
    return pairs;
  }

  /** Books a range's logs; returns how many transfers it booked. */
  private async book(
    s: Stores,
    network: Network,
    tokens: readonly OnChainTokenRef[],
    pairs: ReadonlyMap<string, string | null>,
    logs: readonly TokenTransfer[],
    now: Date,
  ): Promise<number> {
    const custody = this.deps.custody(network);
    const byAddress = new Map(tokens.map((t) => [t.address.toLowerCase(), t]));
    const bookings: Booking[] = [];
    for (const log of logs) {
      const token = byAddress.get(log.token.toLowerCase());
      if (!token) continue;
      const parties = { custody, pair: token.pair ?? pairs.get(token.tokenId) ?? null, seeder: this.deps.seeder?.(network) ?? null, servicePull: false };
      let kind = bookingOf(log, parties);
      // Into custody: one of the service's pulls (its sell booked it), or a wallet's own transfer.
      if (kind === 'out' && same(log.to, custody)) kind = bookingOf(log, { ...parties, servicePull: (await s.pulls.byTransaction(network, log.txHash)) !== null });
      if (kind !== 'none') bookings.push({ log, token, kind });
    }
    // Each token's row lock, in one order: a sell of the same token waits, or is waited for.
    for (const tokenId of [...new Set(bookings.map((b) => b.token.tokenId))].sort()) await s.tokens.getForUpdate(tokenId);
    let booked = 0;
    for (const b of bookings) {
      if (!(await s.transfers.record({ ...b.log, tokenId: b.token.tokenId, bookedAt: now }))) continue;
      await this.apply(s, b, now);
      booked += 1;
    }
    return booked;
  }

  private async apply(s: Stores, { log, token, kind }: Booking, now: Date): Promise<void> {
    const network = log.network;
    const held = {
      from: kind === 'in' ? null : await s.positions.get(network, log.from, token.tokenId),
      to: kind === 'out' ? null : await s.positions.get(network, log.to, token.tokenId),
    };
    const booked = bookTransfer(kind, { ...log, tokenId: token.tokenId }, held, now);
    if (booked.from) await s.positions.save(booked.from);
    if (booked.to) await s.positions.save(booked.to);
    if (booked.shortfall > 0n && !held.from) {
      this.deps.logger.warn('a wallet without a position sent tokens: the books never knew it had them', {
        network,
        tokenId: token.tokenId,
        wallet: log.from,
        txHash: log.txHash,
        shortfall: formatTokens(booked.shortfall),
      });
    }
    await s.events.append({
      type: 'position.transferred',
      network,
      tokenId: token.tokenId,
      data: {
        tokenId: token.tokenId,
        from: log.from,
        to: log.to,
        amount: formatTokens(log.amount),
        costBasisUsd: formatUsd(booked.basisUsd),
        booking: kind,
        txHash: log.txHash,
        blockNumber: log.blockNumber.toString(),
        logIndex: log.logIndex,
      },
      createdAt: now,
    });
  }
}
