/**
 * The Logger port in memory, for tests: every line kept as `{ level, message, fields }`, filtered
 * by level as the real logger filters, amounts (bigint) as decimal strings as it writes them.
 */
import type { LogFields, Logger } from '../../../ports/logger.js';

export type MemoryLogLevel = 'debug' | 'info' | 'warn' | 'error' | 'silent';
export interface LogLine {
  level: Exclude<MemoryLogLevel, 'silent'>;
  message: string;
  fields: LogFields;
}

const RANK = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 } as const;

export class MemoryLogger implements Logger {
  readonly lines: LogLine[] = [];

  constructor(private readonly level: MemoryLogLevel = 'debug') {}

  debug(message: string, fields?: LogFields): void {
    this.log('debug', message, fields);
  }
  info(message: string, fields?: LogFields): void {
    this.log('info', message, fields);
  }
  warn(message: string, fields?: LogFields): void {
    this.log('warn', message, fields);
  }
  error(message: string, fields?: LogFields): void {
    this.log('error', message, fields);
  }

  enabled(level: LogLine['level']): boolean {
    return RANK[level] >= RANK[this.level];
  }

  private log(level: LogLine['level'], message: string, fields: LogFields = {}): void {
    if (!this.enabled(level)) return;
    this.lines.push({ level, message, fields: JSON.parse(JSON.stringify(fields, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v))) as LogFields });
  }
}
