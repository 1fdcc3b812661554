import { describe, expect, it } from 'vitest';
import { getAddress } from 'viem';
import { TESTNET } from '../../src/domain/network.js';
import { ZERO_ADDRESS } from '../../src/domain/transfer.js';
import type { TransferLogReader } from '../../src/ports/transfer-log-reader.js';

export interface TransferLogReaderHarness {
  reader: TransferLogReader;
  /** The account every new token's supply is minted to. */
  custody: string;
  /** Two accounts that can sign transfers of their own. */
  holders: [string, string];
  /** A freshly deployed token on the testnet, its whole supply minted to custody. */
  newToken(): Promise<string>;
  /** `from` (custody or a holder) sends `amount` of `token` to `to`, in a transaction of its own, mined; its hash. */
  transfer(token: string, from: string, to: string, amount: bigint): Promise<string>;
  /** One mined transaction that moves `token` twice: to `a`, then to `b`; its hash. */
  transferTwice(token: string, a: string, amountA: bigint, b: string, amountB: bigint): Promise<string>;
  /** Mines `count` empty blocks. */
  mine(count: number): Promise<void>;
}

const network = TESTNET;
const SUPPLY = 1_000_000_000n * 10n ** 18n;
const isHash = (v: string) => /^0x[0-9a-fA-F]{64}$/.test(v);

export function transferLogReaderContract(name: string, make: () => Promise<TransferLogReaderHarness>) {
  describe(`TransferLogReader contract: ${name}`, () => {
    it('reads the head and the hash of any block it has, and null past the head', async () => {
      const h = await make();
      expect(h.reader.supports(network)).toBe(true);
      const before = await h.reader.head(network);
      await h.mine(2);
      const head = await h.reader.head(network);
      expect(head).toBe(before + 2n);
      const hash = await h.reader.blockHash(network, head);
      expect(isHash(hash!)).toBe(true);
      expect(await h.reader.blockHash(network, head)).toBe(hash);
      expect(await h.reader.blockHash(network, head - 1n)).not.toBe(hash);
      expect(await h.reader.blockHash(network, head + 1_000n)).toBeNull();
    });

    it('reads a token’s mint and transfers in chain order, exactly, with where each was mined', async () => {
      const h = await make();
      const from = (await h.reader.head(network)) + 1n;
      const token = await h.newToken();
      const [a, b] = h.holders;
      const big = 3n * 10n ** 26n + 123_456_789n; // past 2^64, to the unit
      const t1 = await h.transfer(token, h.custody, a, big);
      const t2 = await h.transfer(token, a, b, 5n);
      const to = await h.reader.head(network);
      const logs = await h.reader.transfers(network, [token.toLowerCase()], from, to);
      expect(logs.map((l) => [l.from, l.to, l.amount])).toEqual([
        [ZERO_ADDRESS, getAddress(h.custody), SUPPLY],
        [getAddress(h.custody), getAddress(a), big],
        [getAddress(a), getAddress(b), 5n],
      ]);
      expect(logs.map((l) => l.txHash.toLowerCase()).slice(1)).toEqual([t1.toLowerCase(), t2.toLowerCase()]);
      for (const l of logs) {
        expect(l).toMatchObject({ network, token: getAddress(token), txLogIndex: 0 });
        expect(l.blockNumber >= from && l.blockNumber <= to).toBe(true);
        expect(l.blockHash).toBe(await h.reader.blockHash(network, l.blockNumber));
      }
      expect(logs[0]!.blockNumber < logs[1]!.blockNumber && logs[1]!.blockNumber < logs[2]!.blockNumber).toBe(true);
    });

    it('reads only the tokens asked for, within the blocks asked for (both ends included)', async () => {
      const h = await make();
      const [x, y] = [await h.newToken(), await h.newToken()];
      const [a] = h.holders;
      await h.transfer(x, h.custody, a, 1n);
      await h.transfer(y, h.custody, a, 2n);
      await h.transfer(x, h.custody, a, 3n);
      const head = await h.reader.head(network);
      const onlyX = await h.reader.transfers(network, [x], 0n, head);
      expect(onlyX.filter((l) => l.from !== ZERO_ADDRESS).map((l) => l.amount)).toEqual([1n, 3n]);
      const both = await h.reader.transfers(network, [x, y], 0n, head);
      expect(both.filter((l) => l.from !== ZERO_ADDRESS).map((l) => l.amount)).toEqual([1n, 2n, 3n]);
      const last = both.at(-1)!;
      expect(await h.reader.transfers(network, [x, y], last.blockNumber, last.blockNumber)).toEqual([last]);
      await h.mine(1);
      expect(await h.reader.transfers(network, [x, y], last.blockNumber + 1n, await h.reader.head(network))).toEqual([]);
      expect(await h.reader.transfers(network, [], 0n, head)).toEqual([]);
    });

    it('numbers the logs of one transaction by their place in it', async () => {
      const h = await make();
      const token = await h.newToken();
      const [a, b] = h.holders;
      const start = (await h.reader.head(network)) + 1n;
      const tx = await h.transferTwice(token, a, 7n, b, 8n);
      const logs = (await h.reader.transfers(network, [token], start, await h.reader.head(network))).filter((l) => l.txHash.toLowerCase() === tx.toLowerCase());
      expect(logs.map((l) => [l.to, l.amount, l.txLogIndex])).toEqual([
        [getAddress(a), 7n, 0],
        [getAddress(b), 8n, 1],
      ]);
      expect(logs[1]!.logIndex).toBeGreaterThan(logs[0]!.logIndex);
      expect(logs[0]!.blockNumber).toBe(logs[1]!.blockNumber);
    });
  });
}
