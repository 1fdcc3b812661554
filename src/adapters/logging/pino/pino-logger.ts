/**
 * The Logger port on pino: one JSON object per line on stderr (stdout stays free for the start
 * banner), in pino's own shape so its tools read it as it is (`pino-pretty`, log shippers): `level`
 * as its name, `time` in ISO-8601, `pid`, `hostname`, the fields, then `msg`. Written
 * asynchronously; `flush` on the way out. Amounts (bigint) are written as decimal strings, never
 * as JSON numbers a reader would round.
 */
import { pino, stdTimeFunctions, type DestinationStream, type Logger as Pino } from 'pino';
import type { LogFields, Logger } from '../../../ports/logger.js';
import { terminalLines } from './terminal-lines.js';

export type LogLevel = 'debug' | 'info' | 'warn' | 'error' | 'silent';
/** `auto`: pretty when stderr is a terminal, JSON lines otherwise. */
export type LogFormat = 'auto' | 'json' | 'pretty';

export interface PinoLoggerOptions {
  level?: LogLevel;
  /** Where lines go (tests capture them); default stderr, written asynchronously. */
  destination?: DestinationStream;
  format?: LogFormat;
}

export class PinoLogger implements Logger {
  private readonly pino: Pino;

  constructor(options: PinoLoggerOptions = {}) {
    this.pino = pino(
      {
        level: options.level ?? 'info',
        timestamp: stdTimeFunctions.isoTime,
        formatters: {
          level: (label) => ({ level: label }),
          log: (fields) => decimalStrings(fields) as Record<string, unknown>,
        },
      },
      options.destination ?? defaultDestination(options),
    );
  }

  debug(message: string, fields?: LogFields): void {
    this.pino.debug(fields ?? {}, message);
  }
  info(message: string, fields?: LogFields): void {
    this.pino.info(fields ?? {}, message);
  }
  warn(message: string, fields?: LogFields): void {
    this.pino.warn(fields ?? {}, message);
  }
  error(message: string, fields?: LogFields): void {
    this.pino.error(fields ?? {}, message);
  }

  enabled(level: 'debug' | 'info' | 'warn' | 'error'): boolean {
    return this.pino.isLevelEnabled(level);
  }

  /** Writes out what is buffered (before the process exits). */
  flush(): Promise<void> {
    return new Promise((resolve) => this.pino.flush(() => resolve()));
  }
}

function defaultDestination(options: PinoLoggerOptions): DestinationStream {
  const format = options.format ?? 'auto';
  if (format === 'json' || (format === 'auto' && !process.stderr.isTTY)) return pino.destination({ fd: 2, sync: false });
  return terminalLines({ write: (line) => process.stderr.write(line), accessLines: options.level === 'debug' });
}

/**
 * The fields with every bigint as its decimal string. An access line (one per request) has none:
 * it is given back as it is, not copied key by key.
 */
function decimalStrings(value: unknown, depth = 0): unknown {
  return hasBigint(value, depth) ? withDecimalStrings(value, depth) : value;
}

function hasBigint(value: unknown, depth: number): boolean {
  if (typeof value === 'bigint') return true;
  if (depth > 4 || value === null || typeof value !== 'object' || value instanceof Error || value instanceof Date) return false;
  if (Array.isArray(value)) return value.some((v) => hasBigint(v, depth + 1));
  for (const key in value) if (hasBigint((value as Record<string, unknown>)[key], depth + 1)) return true;
  return false;
}

function withDecimalStrings(value: unknown, depth: number): unknown {
  if (typeof value === 'bigint') return value.toString();
  if (depth > 4 || value === null || typeof value !== 'object' || value instanceof Error || value instanceof Date) return value;
  if (Array.isArray(value)) return value.map((v) => withDecimalStrings(v, depth + 1));
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, withDecimalStrings(v, depth + 1)]));
}
