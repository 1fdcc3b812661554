/**
 * The devnet never attaches to a node it did not start (#16.1): a port another node answers on
 * is refused with PortInUse — whether it is taken before we look or between our look and the
 * spawn — and that node is never asked anything. Also: which npm package carries anvil where.
 */
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { AnvilDevnet, ANVIL_VERSION, anvilPackage } from '../../../src/adapters/chain/anvil/anvil-devnet.js';
import { PortInUse, portIsFree } from '../../../src/adapters/shared/port-in-use.js';
import type * as PortModule from '../../../src/adapters/shared/port-in-use.js';
import { freePorts } from '../../support/free-ports.js';

// The real port check, which a test can make look away once (the race between check and spawn).
vi.mock('../../../src/adapters/shared/port-in-use.js', async (importOriginal) => {
  const real = await importOriginal<typeof PortModule>();
  return { ...real, portIsFree: vi.fn(real.portIsFree) };
});

/** Another devnet's node, as far as a JSON-RPC client can tell: it answers with the chain id we expect. */
async function impostor(port: number, chainId: number): Promise<{ server: Server; methods: string[] }> {
  const methods: string[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      const call = JSON.parse(body) as { id: number; method: string };
      methods.push(call.method);
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ jsonrpc: '2.0', id: call.id, result: call.method === 'eth_chainId' ? `0x${chainId.toString(16)}` : '0x' }));
    });
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return { server, methods };
}

const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((r) => s.close(r))));
});

async function refusal(port: number): Promise<unknown> {
  return AnvilDevnet.start({ port }).then(
    async (devnet) => {
      await devnet.stop();
      return null;
    },
    (e: unknown) => e,
  );
}

describe('AnvilDevnet.start on a port another node answers', () => {
  it('refuses when chain 8453’s port is taken, and asks that node nothing', async () => {
    const port = await freePorts();
    const other = await impostor(port, 8453);
    servers.push(other.server);
    const e = await refusal(port);
    expect(e).toBeInstanceOf(PortInUse);
    expect(e).toMatchObject({ port, host: '127.0.0.1' });
    expect(other.methods).toEqual([]);
  });

  it('refuses when chain 84532’s port (the next one) is taken', async () => {
    const port = await freePorts();
    const other = await impostor(port + 1, 84532);
    servers.push(other.server);
    expect(await refusal(port)).toMatchObject({ port: port + 1 });
    expect(other.methods).toEqual([]);
  });

  it('refuses when the port is taken after the check: only the child we started counts as ready', async () => {
    const port = await freePorts();
    const other = await impostor(port, 8453);
    servers.push(other.server);
    // Both pre-spawn checks see free ports, as if the other node bound right after them.
    vi.mocked(portIsFree).mockResolvedValueOnce(true).mockResolvedValueOnce(true);
    const e = await refusal(port);
    expect(e).toBeInstanceOf(PortInUse);
    expect(e).toMatchObject({ port });
    expect(other.methods).toEqual([]);
  }, 30_000);
});

describe('anvil packages', () => {
  it('names the platform package the way @foundry-rs/anvil does, and package.json pins the tested version', () => {
    expect(anvilPackage('linux', 'x64')).toBe('@foundry-rs/anvil-linux-amd64');
    expect(anvilPackage('linux', 'arm64')).toBe('@foundry-rs/anvil-linux-arm64');
    expect(anvilPackage('darwin', 'arm64')).toBe('@foundry-rs/anvil-darwin-arm64');
    expect(anvilPackage('darwin', 'x64')).toBe('@foundry-rs/anvil-darwin-amd64');
    expect(anvilPackage('win32', 'x64')).toBe('@foundry-rs/anvil-win32-amd64');
    const pkg = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as {
      optionalDependencies: Record<string, string>;
    };
    const anvils = Object.entries(pkg.optionalDependencies).filter(([name]) => name.startsWith('@foundry-rs/anvil-'));
    expect(anvils.length).toBeGreaterThan(0);
    for (const [, version] of anvils) expect(version).toBe(ANVIL_VERSION);
  });
});
