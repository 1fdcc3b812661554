/**
 * pino's JSON lines rewritten for a person at a terminal (LOG_FORMAT=pretty, the default when
 * stderr is a TTY): `04:41:08 warn  payout failed  payoutId=pay_… network=eip155:84532`. The
 * per-request access lines are left out unless they are server errors or LOG_LEVEL=debug: a person
 * who just typed `npm start` reads what the service did, not every GET the page made (decision 0045).
 */
import type { DestinationStream } from 'pino';

const HIDDEN = new Set(['level', 'time', 'pid', 'hostname', 'msg']);

export interface TerminalLinesOptions {
  /** Where the lines go: a stream's `write`. */
  write(line: string): void;
  /** Also the access lines of answered requests (LOG_LEVEL=debug). */
  accessLines: boolean;
}

export function terminalLines(options: TerminalLinesOptions): DestinationStream {
  return {
    write(json: string): void {
      const line = toLine(json, options.accessLines);
      if (line !== null) options.write(line);
    },
  };
}

/** One readable line, or null for an access line left out. */
export function toLine(json: string, accessLines = false): string | null {
  let entry: Record<string, unknown>;
  try {
    entry = JSON.parse(json) as Record<string, unknown>;
  } catch {
    return json.endsWith('\n') ? json : `${json}\n`;
  }
  if (entry.msg === 'request' && !accessLines && !(Number(entry.status) >= 500)) return null;
  const time = typeof entry.time === 'string' ? entry.time.slice(11, 19) : '';
  const level = String(entry.level ?? '').padEnd(5);
  const fields = Object.entries(entry)
    .filter(([k]) => !HIDDEN.has(k))
    .map(([k, v]) => `${k}=${typeof v === 'string' ? v : JSON.stringify(v)}`);
  return `${[time, level, entry.msg, ...fields].filter((p) => p !== '').join('  ').replace(/\n(?!$)/g, '\n    ')}\n`;
}
