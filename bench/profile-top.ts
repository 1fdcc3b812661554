/**
 * The top self-time frames of a V8 .cpuprofile (as `node --cpu-prof` writes it), and the same
 * time grouped by where the code lives (a package under node_modules, src/…, node internals).
 *   tsx bench/profile-top.ts bench/results/profiles/<config>/<file>.cpuprofile [count] [--from=<s>]
 * `--from` skips the first seconds (the service's start: module loading, the devnet).
 */
import { readFileSync } from 'node:fs';
import { commandLine, usageError, wholeNumber } from '../scripts/command-line.js';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

const USAGE = 'usage: tsx bench/profile-top.ts <file.cpuprofile> [count] [--from=<seconds>]';
const { values, positionals } = commandLine(USAGE, { options: { from: { type: 'string' } }, allowPositionals: true });
const [file, countArg, ...extra] = positionals;
if (!file) usageError(USAGE, 'which profile? none given');
if (extra.length > 0) usageError(USAGE, `unexpected argument ${extra.map((a) => `"${a}"`).join(' ')}`);
const fromS = Number(values.from ?? 0);
if (!(fromS >= 0) || values.from?.trim() === '') usageError(USAGE, `--from must be a number of seconds, not "${values.from}"`);
const count = wholeNumber(USAGE, 'count', countArg, 25);
const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const self = new Map<number, number>();
let clock = 0;
// A gap between two samples far past the sampling interval is time the process (or its sampler)
// was not running — the machine's other work — not time spent in the frame that happens to be
// on the stack: it is reported apart, never charged to a frame.
const GAP_US = 50_000;
let gaps = 0;
profile.samples.forEach((id, i) => {
  const delta = profile.timeDeltas[i] ?? 0;
  clock += delta;
  if (clock < fromS * 1e6) return;
  if (delta > GAP_US) gaps += delta;
  else self.set(id, (self.get(id) ?? 0) + delta);
});
const total = [...self.values()].reduce((a, b) => a + b, 0);
const idle = [...self.entries()].filter(([id]) => byId.get(id)!.callFrame.functionName === '(idle)').reduce((a, [, t]) => a + t, 0);

function area(url: string, fn: string): string {
  if (!url) return fn.startsWith('(') ? fn : '(native)';
  const m = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (m) return m[1]!;
  if (url.startsWith('node:')) return 'node:internal';
  const s = /\/(src\/[^/]+\/[^/]+)/.exec(url);
  return s ? s[1]! : url.replace(/^.*\//, '');
}

const frames = new Map<string, number>();
const areas = new Map<string, number>();
for (const [id, t] of self) {
  const { functionName, url, lineNumber } = byId.get(id)!.callFrame;
  const where = url ? `${url.replace(/^.*node_modules\//, '').replace(/^file:\/\/.*?\/(src|bench|test)\//, '$1/')}:${lineNumber + 1}` : '';
  const key = `${functionName || '(anonymous)'} ${where}`.trim();
  frames.set(key, (frames.get(key) ?? 0) + t);
  const a = area(url, functionName);
  areas.set(a, (areas.get(a) ?? 0) + t);
}
const pct = (t: number) => `${((t / (total - idle)) * 100).toFixed(1).padStart(5)}%`;
console.log(`${file}: ${(total / 1e6).toFixed(1)} s sampled, ${((idle / total) * 100).toFixed(0)}% idle; shares below are of busy time${gaps ? `; ${(gaps / 1e6).toFixed(1)} s in gaps over ${GAP_US / 1000} ms between samples left out` : ''}`);
console.log('\ntop frames by self time:');
for (const [k, t] of [...frames].filter(([k]) => !k.startsWith('(idle)')).sort((a, b) => b[1] - a[1]).slice(0, count)) console.log(`${pct(t)}  ${k}`);
console.log('\nby area:');
for (const [k, t] of [...areas].filter(([k]) => k !== '(idle)').sort((a, b) => b[1] - a[1]).slice(0, count)) console.log(`${pct(t)}  ${k}`);
