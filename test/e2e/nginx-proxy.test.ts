/**
 * The service behind Debian's nginx with its default buffers (decision 0034, docs/operations.md
 * "Behind a proxy"): the official @x402/fetch client's paid round trips work through it — the
 * 402's PAYMENT-REQUIRED passes `proxy_buffer_size` (one memory page: 4 KiB here) and the
 * PAYMENT-SIGNATURE sent back passes `large_client_header_buffers 4 8k`. A control upstream shows
 * this nginx does refuse what is larger (502 for a 5 KiB response header, 400 for a 9 KiB request
 * header), so the round trips pass because our headers are small, not because the proxy is lenient.
 * One setting is not the default: `client_max_body_size 2m` (nginx's default, 1m, refuses an image
 * upload of 1 MiB as base64 with its own 413; docs/operations.md says to raise it).
 *
 * Needs nginx (`apt-get install -y nginx`; .ci/run installs it). The test starts its own, as the
 * user it runs as, on a free port, with nothing in its configuration but paths and the proxy.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningService } from '../../src/bootstrap/compose.js';
import { freePorts } from '../support/free-ports.js';
import { json, settle, startTestService } from '../support/service.js';
import { dataUrl, noisePng } from '../support/images.js';
import { pollUntil } from '../support/wait.js';
import { devAccount, payingFetch } from '../support/x402-client.js';

function nginxBinary(): string {
  for (const candidate of ['/usr/sbin/nginx', '/usr/local/sbin/nginx', '/usr/local/nginx/sbin/nginx']) if (existsSync(candidate)) return candidate;
  const found = spawnSync('sh', ['-c', 'command -v nginx'], { encoding: 'utf8' }).stdout.trim();
  if (found) return found;
  throw new Error('nginx is not installed: this test runs the service behind it (apt-get install -y nginx)');
}

const dir = mkdtempSync(join(tmpdir(), 'launchpad-obs-nginx-'));
const wallet = devAccount(1); // a production wallet: it pays a 402 offering both networks right the first time
let service: RunningService;
let control: Server;
let nginx: ChildProcess;
let proxy: string;

async function listening(port: number): Promise<void> {
  const accepts = () =>
    new Promise<boolean>((resolve) => {
      const socket = connect(port, '127.0.0.1', () => (socket.end(), resolve(true)));
      socket.on('error', () => resolve(false));
    });
  if (!(await pollUntil(accepts, { stepMs: 50 }))) throw new Error(`nginx did not listen on ${port}: ${readFileSync(join(dir, 'error.log'), 'utf8')}`);
}

beforeAll(async () => {
  const binary = nginxBinary();
  // The free-request limit on, as deployed: its headers ride on every response too.
  service = await startTestService({}, { RATE_LIMIT_FREE_PER_MINUTE: '1000' });
  control = createServer((req, res) => {
    res.writeHead(200, { 'x-big': 'x'.repeat(5_000), 'content-type': 'text/plain' }).end('control');
  });
  await new Promise<void>((r) => control.listen(0, '127.0.0.1', r));
  const controlPort = (control.address() as { port: number }).port;
  const servicePort = new URL(service.url).port;
  const port = await freePorts(1);
  chmodSync(dir, 0o755); // nginx's workers may run as another user
  for (const d of ['body', 'proxy', 'fastcgi', 'uwsgi', 'scgi']) mkdirSync(join(dir, d));
  const root = process.getuid?.() === 0;
  writeFileSync(
    join(dir, 'nginx.conf'),
    [
      ...(root ? ['user root root;'] : []),
      'worker_processes 1;',
      `pid ${dir}/nginx.pid;`,
      `error_log ${dir}/error.log;`,
      'events { worker_connections 64; }',
      'http {',
      '  access_log off;',
      ...['body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map((d) => `  ${d === 'body' ? 'client_body' : d}_temp_path ${dir}/${d};`),
      '  server {',
      `    listen 127.0.0.1:${port};`,
      '    client_max_body_size 2m;',
      `    location / { proxy_pass http://127.0.0.1:${servicePort}; }`,
      `    location /control { proxy_pass http://127.0.0.1:${controlPort}; }`,
      '  }',
      '}',
    ].join('\n'),
  );
  nginx = spawn(binary, ['-p', dir, '-c', join(dir, 'nginx.conf'), '-e', join(dir, 'error.log'), '-g', 'daemon off;'], { stdio: 'ignore' });
  await listening(port);
  proxy = `http://127.0.0.1:${port}`;
}, 60_000);

afterAll(async () => {
  if (nginx && nginx.exitCode === null) {
    const exited = new Promise((r) => nginx.once('exit', r));
    nginx.kill('SIGTERM');
    await exited;
  }
  if (control) await new Promise((r) => control.close(r)); // unset when the set-up failed early (no nginx)
  await service?.stop();
  rmSync(dir, { recursive: true, force: true });
});

const call = (path: string, body: unknown, f: typeof fetch = fetch, headers: Record<string, string> = {}) =>
  f(`${proxy}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });

describe('behind nginx with its default buffers', () => {
  it('refuses headers past its defaults (the control): a 5 KiB response header is 502, a 9 KiB request header 400', async () => {
    expect((await fetch(`${proxy}/control`)).status).toBe(502);
    expect((await fetch(`${proxy}/tokens`, { headers: { 'x-big': 'x'.repeat(9 * 1024) } })).status).toBe(400);
  });

  it('the official client pays through it: a create offering both networks, a buy and an info', async () => {
    const pay = payingFetch(wallet);
    const unpaid = await call('/tokens', { name: 'Proxied Token', symbol: 'PROXY' });
    expect(unpaid.status).toBe(402);
    expect(unpaid.headers.get('payment-required')).toBeTruthy();

    const created = await call('/tokens', { name: 'Proxied Token', symbol: 'PROXY', description: 'Created through nginx.' }, pay);
    expect(created.status).toBe(201);
    expect(created.headers.get('payment-response')).toBeTruthy();
    const tokenId = (await json(created)).data.tokenId;
    await settle(service);

    const bought = await call('/entrypoints/token_buy_usd', { tokenId, usdAmount: '2.5' }, pay, { 'x-wallet-address': wallet.address });
    expect(bought.status).toBe(200);
    expect((await json(bought)).data.tokenId).toBe(tokenId);

    const info = await call('/entrypoints/token_info', { tokenId }, pay);
    expect(info.status).toBe(200);
    expect((await json(info)).operation).toBe('token_info');
  });

  it('a create carrying an image of almost 1 MiB (1.3 MB of JSON) passes it to its 402', async () => {
    const png = await noisePng(540, 540);
    expect(png.length).toBeGreaterThan(850_000);
    const body = { name: 'Big Picture', symbol: 'BIG', image: dataUrl(png) };
    expect(JSON.stringify(body).length).toBeGreaterThan(1_100_000);
    const unpaid = await call('/tokens', body);
    expect(unpaid.status).toBe(402);
  });
});
