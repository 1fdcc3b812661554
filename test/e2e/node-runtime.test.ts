/**
 * Node 24 under a bare `node` (decision 0070): npm scripts find the project's own Node 24 first on
 * their PATH, but `node dist/main.js` and the launchpad-mcp bin run on whatever Node the machine
 * has. On an older one, bin/on-node-24.js runs the command again under the project's Node and
 * passes its output, exit code and signals through. Checked with the machine's own Node when it is
 * older than 24 (the machines here ship Node 20); on a machine whose Node is 24 there is nothing to
 * re-run and the files are skipped.
 */
import { execFileSync, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { waitFor } from '../support/wait.js';

const PROBE = join('test', 'fixtures', 'runtime-probe.mjs');

/** The machine's own `node`: the first on PATH that is not a node_modules/.bin one. */
function machineNode(): { path: string; major: number } | null {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    const path = join(dir, 'node');
    if (dir.includes('node_modules') || !existsSync(path)) continue;
    const version = execFileSync(path, ['--version'], { encoding: 'utf8' }).trim();
    return { path, major: Number(version.slice(1).split('.')[0]) };
  }
  return null;
}

const machine = machineNode();
const older = machine !== null && machine.major < 24;

describe.runIf(older)(`a bare \`node\` older than 24 (${machine?.path})`, () => {
  it('runs the command under the project’s Node 24, with its output and exit code', () => {
    const run = (code: number) => {
      try {
        return { out: execFileSync(machine!.path, [PROBE, 'exit', String(code)], { encoding: 'utf8' }), status: 0 };
      } catch (e) {
        const failed = e as { stdout: string; status: number };
        return { out: failed.stdout, status: failed.status };
      }
    };
    expect(process.versions.node.split('.')[0]).toBe('24'); // the tests themselves run on it (npm test)
    expect(run(0)).toEqual({ out: `on ${process.version}\n`, status: 0 });
    expect(run(3)).toEqual({ out: `on ${process.version}\n`, status: 3 });
  });

  it('passes a SIGTERM on to the command and exits as it does', async () => {
    const child = spawn(machine!.path, [PROBE, 'wait'], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code))); // close: after its output is read, too
    await waitFor('the probe to start', () => out.includes('on v24'));
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(out).toBe(`on ${process.version}\nstopped by SIGTERM\n`);
  });
});
