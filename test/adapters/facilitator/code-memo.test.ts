/**
 * The in-process facilitator's memo of account code (decision 0054): the exact scheme's four
 * questions about one payer cost one call; it forgets within seconds, never keeps a failure, and
 * stays bounded.
 */
import type { Hex } from 'viem';
import { describe, expect, it } from 'vitest';
import { CodeMemo } from '../../../src/adapters/facilitator/local/code-memo.js';

const A = '0x00000000000000000000000000000000000000aa' as Hex;
const B = '0x00000000000000000000000000000000000000bb' as Hex;

function reader(answers: Record<string, Hex | undefined | Error> = {}) {
  const calls: string[] = [];
  const read = async (address: Hex) => {
    calls.push(address);
    const answer = answers[address.toLowerCase()];
    if (answer instanceof Error) throw answer;
    return answer ?? '0x';
  };
  return { calls, read };
}

describe('CodeMemo', () => {
  it('answers repeats for one address (in any letter case) from one call, concurrent ones included', async () => {
    const r = reader({ [B]: '0x6080' });
    const memo = new CodeMemo(r.read, { ttlMs: 5_000 });
    const answers = await Promise.all([memo.code(A), memo.code(A), memo.code(A.toUpperCase().replace('0X', '0x') as Hex)]);
    expect(answers).toEqual(['0x', '0x', '0x']);
    expect(await memo.code(A)).toBe('0x');
    expect(await memo.code(B)).toBe('0x6080');
    expect(r.calls).toEqual([A, B]);
  });

  it('asks again once its time is up: an account that gains code is seen on its next payment', async () => {
    let now = 1_000;
    const answers: Record<string, Hex> = { [A]: '0x' };
    const r = reader(answers);
    const memo = new CodeMemo(r.read, { ttlMs: 5_000, now: () => now });
    expect(await memo.code(A)).toBe('0x');
    answers[A] = '0xef0100'; // an EIP-7702 delegation
    now += 4_999;
    expect(await memo.code(A)).toBe('0x');
    now += 1;
    expect(await memo.code(A)).toBe('0xef0100');
    expect(r.calls).toHaveLength(2);
  });

  it('keeps no failure: the next question asks the chain again', async () => {
    const answers: Record<string, Hex | Error> = { [A]: new Error('node down') };
    const r = reader(answers);
    const memo = new CodeMemo(r.read, { ttlMs: 5_000 });
    await expect(memo.code(A)).rejects.toThrow('node down');
    answers[A] = '0x';
    expect(await memo.code(A)).toBe('0x');
    expect(r.calls).toHaveLength(2);
  });

  it('lets go of expired entries as soon as another address is asked', async () => {
    let now = 0;
    const r = reader();
    const memo = new CodeMemo(r.read, { ttlMs: 5_000, now: () => now });
    await memo.code(A);
    now += 5_000;
    await memo.code(B);
    expect(memo.size).toBe(1);
  });

  it('holds at most maxEntries addresses, forgetting the oldest first', async () => {
    const r = reader();
    const memo = new CodeMemo(r.read, { ttlMs: 60_000, maxEntries: 3 });
    const address = (i: number) => `0x${i.toString(16).padStart(40, '0')}` as Hex;
    for (let i = 1; i <= 5; i++) await memo.code(address(i));
    expect(memo.size).toBe(3);
    await memo.code(address(5));
    expect(r.calls).toHaveLength(5); // the newest is still kept
    await memo.code(address(1));
    expect(r.calls).toHaveLength(6); // the oldest was forgotten
  });
});
