import type { LogFields, Logger } from '../../../ports/logger.js';

const LEVELS = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 } as const;
export type LogLevel = keyof typeof LEVELS;

/** One JSON object per line on stderr (stdout stays free for the start banner). */
export class JsonLogger implements Logger {
  constructor(
    private readonly level: LogLevel = 'info',
    private readonly write: (line: string) => void = (line) => process.stderr.write(line + '\n'),
  ) {}

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

  private log(level: Exclude<LogLevel, 'silent'>, message: string, fields?: LogFields): void {
    if (LEVELS[level] < LEVELS[this.level]) return;
    this.write(
      JSON.stringify({ time: new Date().toISOString(), level, message, ...fields }, (_k, v: unknown) =>
        typeof v === 'bigint' ? v.toString() : v,
      ),
    );
  }
}
