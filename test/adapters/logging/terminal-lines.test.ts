import { describe, expect, it } from 'vitest';
import { PinoLogger } from '../../../src/adapters/logging/pino/pino-logger.js';
import { terminalLines, toLine } from '../../../src/adapters/logging/pino/terminal-lines.js';

const access = (status: number) => JSON.stringify({ level: 'info', time: '2026-11-27T04:46:59.020Z', pid: 1, hostname: 'vm', method: 'GET', path: '/health', status, msg: 'request' });

describe('log lines at a terminal (LOG_FORMAT=pretty)', () => {
  it('are one readable line: time, level, message, fields', () => {
    const json = JSON.stringify({ level: 'warn', time: '2026-11-27T04:46:59.020Z', pid: 1, hostname: 'vm', network: 'eip155:8453', fromBlock: '15', msg: 'transfer indexing starts' });
    expect(toLine(json)).toBe('04:46:59  warn   transfer indexing starts  network=eip155:8453  fromBlock=15\n');
  });

  it('leave out the access line of an answered request, but not a server error or at debug', () => {
    expect(toLine(access(200))).toBeNull();
    expect(toLine(access(404))).toBeNull();
    expect(toLine(access(503))).toContain('request  method=GET  path=/health  status=503');
    expect(toLine(access(200), true)).toContain('status=200');
  });

  it('are what the logger writes when asked for them', async () => {
    const lines: string[] = [];
    const logger = new PinoLogger({ destination: terminalLines({ write: (l) => lines.push(l), accessLines: false }) });
    logger.info('request', { status: 200 });
    logger.error('payout failed', { payoutId: 'pay_1', amount: 5n });
    await logger.flush();
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^\d\d:\d\d:\d\d {2}error {2}payout failed {2}payoutId=pay_1 {2}amount=5\n$/);
  });
});
