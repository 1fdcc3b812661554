export type LogFields = Record<string, unknown>;

/** Structured logs; the adapter decides the format and the level. */
export interface Logger {
  debug(message: string, fields?: LogFields): void;
  info(message: string, fields?: LogFields): void;
  warn(message: string, fields?: LogFields): void;
  error(message: string, fields?: LogFields): void;
  /**
   * Whether a line of `level` would be written: a caller skips making fields nobody reads (an
   * access line per request). The service's adapters say; a logger without it writes every level.
   */
  enabled?(level: 'debug' | 'info' | 'warn' | 'error'): boolean;
}
