// The runtime check of every entry point a person runs with a bare `node` (node dist/main.js, the
// launchpad-mcp bin): the service needs Node 24 (better-sqlite3 13 and MikroORM 7 do not run on
// older ones). On an older Node it runs the same command again under the project's own Node 24 —
// the pinned `node-linux-*` package npm installs into node_modules/.bin (docs/decisions/0070) —
// and passes signals, the exit code and stdio through. npm scripts need none of this: npm puts
// node_modules/.bin first on their PATH, so their `node` is already that one.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const REQUIRED_MAJOR = 24;

/**
 * True when this process is on Node 24 or later and goes on; false when the command now runs
 * under the project's Node instead (this process only waits for it and exits as it does). Exits
 * with a clear message when there is no Node 24 to run on.
 */
export function onNode24() {
  if (Number(process.versions.node.split('.')[0]) >= REQUIRED_MAJOR) return true;
  const own = join(dirname(fileURLToPath(import.meta.url)), '..', 'node_modules', '.bin', 'node');
  if (!existsSync(own)) {
    process.stderr.write(`x402 launchpad needs Node ${REQUIRED_MAJOR} or later; this is ${process.version}. Run \`npm install\` to bring the project's own Node ${REQUIRED_MAJOR}, or install Node ${REQUIRED_MAJOR}.\n`);
    process.exit(1);
  }
  const child = spawn(own, [...process.execArgv, ...process.argv.slice(1)], { stdio: 'inherit' });
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(signal, () => child.kill(signal));
  child.on('exit', (code, signal) => (signal ? process.kill(process.pid, signal) : process.exit(code ?? 1)));
  return false;
}
