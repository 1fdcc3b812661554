/**
 * The devnet's state files (src/adapters/chain/anvil/state-file.ts): a file anvil could not start
 * from is recognised, moved aside (kept) and replaced by the baseline or genesis, saying so; a
 * save that fails leaves the last whole state in place.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { baselinePath, chooseStartState, saveState, stateFileProblem } from '../../../src/adapters/chain/anvil/state-file.js';

const dirs: string[] = [];
const tempDir = () => {
  const d = mkdtempSync(join(tmpdir(), 'devnet-state-'));
  dirs.push(d);
  return d;
};
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** A state as anvil dumps it (its fields; the contents are not read). */
const STATE = JSON.stringify({
  block: { number: '0x5', timestamp: '0x6b090979' },
  accounts: { '0xf39fd6e51aad88f6f4ce6ab8827279cffb92266': { nonce: 3, balance: '0x1', code: '0x', storage: {} } },
  best_block_number: '0x5',
  blocks: [{ header: {}, transactions: [] }],
  transactions: [],
  historical_states: null,
});
const AT = new Date('2026-11-27T05:00:00.123Z');
const STAMP = '2026-11-27T05-00-00-123Z';

describe('stateFileProblem: what anvil --load-state refuses', () => {
  it('a whole state is fine; empty, cut mid-string or not a state are not', () => {
    const dir = tempDir();
    const file = (name: string, text: string) => {
      writeFileSync(join(dir, name), text);
      return stateFileProblem(join(dir, name));
    };
    expect(file('whole.json', STATE)).toBeNull();
    expect(file('empty.json', '')).toMatch(/JSON/);
    expect(file('cut.json', STATE.slice(0, STATE.indexOf('0xf39f') + 10))).toMatch(/JSON/);
    expect(file('array.json', '[]')).toBe('not a JSON object');
    expect(file('no-block.json', JSON.stringify({ ...JSON.parse(STATE), block: undefined }))).toBe('no "block"');
    expect(file('no-accounts.json', JSON.stringify({ ...JSON.parse(STATE), accounts: undefined }))).toBe('no "accounts" object');
    expect(file('no-blocks.json', JSON.stringify({ ...JSON.parse(STATE), blocks: undefined }))).toBe('no "blocks" list');
  });
});

describe('chooseStartState', () => {
  const setUp = (state: string | null, baseline: string | null) => {
    const dir = tempDir();
    const path = join(dir, 'anvil-84532.json');
    if (state !== null) writeFileSync(path, state);
    if (baseline !== null) writeFileSync(baselinePath(path), baseline);
    const lines: string[] = [];
    return { dir, path, lines, chosen: chooseStartState(path, (l) => lines.push(l), AT) };
  };

  it('a readable state is loaded and becomes the baseline; nothing is said', () => {
    const { path, lines, chosen } = setUp(STATE, null);
    expect(chosen).toBe(path);
    expect(readFileSync(baselinePath(path), 'utf8')).toBe(STATE);
    expect(lines).toEqual([]);
  });

  it('no state at all (a first start): genesis, nothing said', () => {
    const { dir, lines, chosen } = setUp(null, null);
    expect(chosen).toBeUndefined();
    expect(lines).toEqual([]);
    expect(readdirSync(dir)).toEqual([]);
  });

  for (const [how, torn] of [
    ['empty', ''],
    ['cut mid-string', STATE.slice(0, 57)],
  ] as const) {
    it(`a state ${how} is moved aside, kept as it was, and the baseline is loaded instead, saying so`, () => {
      const { path, lines, chosen } = setUp(torn, STATE);
      expect(chosen).toBe(baselinePath(path));
      expect(existsSync(path)).toBe(false);
      expect(readFileSync(`${path}.corrupt-${STAMP}`, 'utf8')).toBe(torn);
      expect(lines).toHaveLength(1);
      expect(lines[0]).toContain(`${path} cannot be loaded (`);
      expect(lines[0]).toContain(`moved aside to ${path}.corrupt-${STAMP}; rebuilding from the baseline ${baselinePath(path)} and the transaction journal`);
    });

    it(`a state ${how} and no baseline: genesis and the journal, saying so`, () => {
      const { path, lines, chosen } = setUp(torn, null);
      expect(chosen).toBeUndefined();
      expect(readFileSync(`${path}.corrupt-${STAMP}`, 'utf8')).toBe(torn);
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(/moved aside to .*; rebuilding from genesis and the transaction journal$/);
    });
  }

  it('a torn state and a torn baseline: both moved aside, genesis and the journal', () => {
    const { path, lines, chosen } = setUp('', '{"block":');
    expect(chosen).toBeUndefined();
    expect(readFileSync(`${baselinePath(path)}.corrupt-${STAMP}`, 'utf8')).toBe('{"block":');
    expect(existsSync(baselinePath(path))).toBe(false);
    expect(lines[0]).toContain(`moved aside to ${baselinePath(path)}.corrupt-${STAMP}; rebuilding from genesis`);
  });

  it('a state missing beside its baseline (a crash before the first save after a rebuild): the baseline', () => {
    const { path, lines, chosen } = setUp(null, STATE);
    expect(chosen).toBe(baselinePath(path));
    expect(lines).toEqual([`${path} is missing; rebuilding from the baseline ${baselinePath(path)} and the transaction journal`]);
  });
});

describe('saveState', () => {
  /** An anvil stand-in answering anvil_dumpState with `result`. */
  async function node(result: unknown): Promise<{ server: Server; url: string }> {
    const server = createServer((req, res) => {
      req.resume();
      req.on('end', () => res.setHeader('content-type', 'application/json').end(JSON.stringify({ jsonrpc: '2.0', id: 1, result })));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as { port: number };
    return { server, url: `http://127.0.0.1:${port}` };
  }

  it('writes the dumped state whole, and a dump that fails leaves the last save as it was', async () => {
    const { gzipSync } = await import('node:zlib');
    const dir = tempDir();
    const path = join(dir, 'anvil-8453.json');
    const good = await node(`0x${gzipSync(STATE).toString('hex')}`);
    const bad = await node('0x1f8b0800'); // a gzip stream cut short
    try {
      await saveState(good.url, path);
      expect(readFileSync(path, 'utf8')).toBe(STATE);
      await expect(saveState(bad.url, path)).rejects.toThrow();
      expect(readFileSync(path, 'utf8')).toBe(STATE);
      expect(stateFileProblem(path)).toBeNull();
    } finally {
      good.server.close();
      bad.server.close();
    }
  });
});
