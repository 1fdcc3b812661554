/** The root's one teardown path (docs/decisions/0044): reverse order, each closer once, every one tried. */
import { describe, expect, it } from 'vitest';
import { Closers } from '../../src/bootstrap/closers.js';

describe('Closers', () => {
  it('closes the last opened first, each once, however often it is asked', async () => {
    const closed: string[] = [];
    const closers = new Closers();
    for (const name of ['logger', 'devnet', 'store', 'HTTP server']) closers.push(name, () => void closed.push(name));
    await Promise.all([closers.close(), closers.close()]);
    await closers.close();
    expect(closed).toEqual(['HTTP server', 'store', 'devnet', 'logger']);
  });

  it('tries every closer when some fail, and reports the failures together', async () => {
    const closed: string[] = [];
    const closers = new Closers();
    closers.push('lock', () => void closed.push('lock'));
    closers.push('store', () => Promise.reject(new Error('connection reset')));
    closers.push('devnet', () => {
      throw new Error('anvil gone');
    });
    const error = await closers.close().then(
      () => null,
      (e: unknown) => e,
    );
    expect(closed).toEqual(['lock']);
    expect(error).toBeInstanceOf(AggregateError);
    expect((error as Error).message).toBe('closing devnet: anvil gone; closing store: connection reset');
  });

  it('rethrows a single failure as it was thrown', async () => {
    const closers = new Closers();
    const failure = new Error('connection reset');
    closers.push('store', () => Promise.reject(failure));
    await expect(closers.close()).rejects.toBe(failure);
  });
});
