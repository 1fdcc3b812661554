import { describe, expect, it } from 'vitest';
import type { Logger } from '../../src/ports/logger.js';

export type Level = 'debug' | 'info' | 'warn' | 'error' | 'silent';
/** A logger at `level` and a way to read back what it wrote, as `{ level, message, fields }`. */
export type MakeLogger = (level: Level) => { logger: Logger; lines(): Promise<{ level: string; message: string; fields: Record<string, unknown> }[]> };

export function loggerContract(name: string, make: MakeLogger) {
  describe(`Logger contract: ${name}`, () => {
    it('writes each line with its level, message and fields', async () => {
      const { logger, lines } = make('debug');
      logger.debug('d', { a: 1 });
      logger.info('i', { requestId: 'req_1', nested: { ok: true } });
      logger.warn('w');
      logger.error('e', { error: 'boom' });
      expect(await lines()).toEqual([
        { level: 'debug', message: 'd', fields: { a: 1 } },
        { level: 'info', message: 'i', fields: { requestId: 'req_1', nested: { ok: true } } },
        { level: 'warn', message: 'w', fields: {} },
        { level: 'error', message: 'e', fields: { error: 'boom' } },
      ]);
    });

    it('drops lines below its level; silent writes nothing', async () => {
      const warn = make('warn');
      warn.logger.debug('no');
      warn.logger.info('no');
      warn.logger.warn('yes');
      warn.logger.error('yes too');
      expect((await warn.lines()).map((l) => l.message)).toEqual(['yes', 'yes too']);
      const silent = make('silent');
      silent.logger.error('never');
      expect(await silent.lines()).toEqual([]);
    });

    it('says which levels it writes, so a caller can skip making fields nobody reads', () => {
      const enabled = (level: Level) => (l: 'debug' | 'info' | 'warn' | 'error') => make(level).logger.enabled?.(l);
      expect((['debug', 'info', 'warn', 'error'] as const).map(enabled('warn'))).toEqual([false, false, true, true]);
      expect(enabled('silent')('error')).toBe(false);
      expect(enabled('debug')('debug')).toBe(true);
    });

    it('writes amounts as exact decimal strings, never as rounded numbers', async () => {
      const { logger, lines } = make('info');
      logger.info('payout', { amount: 123456789012345678901234567890n, parts: [1n, { fee: 2n }] });
      expect((await lines())[0]!.fields).toEqual({ amount: '123456789012345678901234567890', parts: ['1', { fee: '2' }] });
    });
  });
}
