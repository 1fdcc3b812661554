/**
 * The stdio bridge as the docs give it to a host (docs/agents.md "Connect Claude Desktop or
 * Cursor", decision 0074): the command and arguments of their MCP config, spawned as a host spawns
 * them by the official SDK's stdio client. Its stdout is the MCP channel, so every line on it must be
 * a JSON-RPC message (npm's `> x402-launchpad@0.1.0 mcp` banner was not). Over it, the service's
 * resources (the tokens) and prompts answer as they do at /mcp.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { Client, deserializeMessage, serializeMessage, StreamableHTTPClientTransport, type JSONRPCMessage, type Transport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningService } from '../../src/bootstrap/compose.js';
import { json, startTestService } from '../support/service.js';
import { devAccount, payingFetch } from '../support/x402-client.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const read = (path: string) => readFileSync(join(root, path), 'utf8');

interface ServerConfig {
  command: string;
  args: string[];
  env: Record<string, string>;
}

/** The `launchpad` server of the first MCP config (a ```json block with `mcpServers`) in a document. */
function documentedConfig(doc: string): ServerConfig {
  const block = [...doc.matchAll(/```json\n([\s\S]*?)```/g)].map((m) => m[1]!).find((b) => b.includes('"mcpServers"'));
  if (!block) throw new Error('no MCP config in the document');
  return (JSON.parse(block) as { mcpServers: { launchpad: ServerConfig } }).mcpServers.launchpad;
}

/**
 * A host's stdio transport over `command`, spawned as a host spawns it, that keeps every line of
 * its stdout: each must be one JSON-RPC message (the SDK's own stdio client skips a line that is
 * not JSON without a word, so it cannot tell).
 */
class RecordingStdio implements Transport {
  onmessage?: (message: JSONRPCMessage) => void;
  onerror?: (error: Error) => void;
  onclose?: () => void;
  /** Every line written on stdout, and those that were no JSON-RPC message. */
  readonly lines: string[] = [];
  readonly strays: string[] = [];
  private child: ChildProcessWithoutNullStreams | undefined;
  private buffer = '';

  constructor(private readonly config: Pick<ServerConfig, 'command' | 'args'>, private readonly env: Record<string, string>) {}

  async start(): Promise<void> {
    const child = spawn(this.config.command, this.config.args, { env: { PATH: process.env.PATH!, HOME: process.env.HOME ?? '', ...this.env }, stdio: 'pipe' });
    this.child = child;
    child.stdout.on('data', (chunk: Buffer) => {
      this.buffer += chunk.toString('utf8');
      let end: number;
      while ((end = this.buffer.indexOf('\n')) >= 0) {
        const line = this.buffer.slice(0, end);
        this.buffer = this.buffer.slice(end + 1);
        this.lines.push(line);
        let message: JSONRPCMessage;
        try {
          message = deserializeMessage(line);
        } catch {
          this.strays.push(line);
          continue;
        }
        this.onmessage?.(message);
      }
    });
    child.stderr.resume();
    child.on('close', () => this.onclose?.());
    await new Promise<void>((resolve, reject) => child.once('spawn', resolve).once('error', reject));
  }

  async send(message: JSONRPCMessage): Promise<void> {
    this.child!.stdin.write(serializeMessage(message));
  }

  async close(): Promise<void> {
    const child = this.child;
    if (!child || child.exitCode !== null) return;
    const closed = new Promise((r) => child.once('close', r));
    child.stdin.end(); // the bridge stops when its host closes stdin
    await closed;
  }
}

async function host(config: Pick<ServerConfig, 'command' | 'args'>, env: Record<string, string>) {
  const transport = new RecordingStdio(config, env);
  const client = new Client({ name: 'launchpad-host-test', version: '1.0.0' });
  await client.connect(transport);
  return { client, transport };
}

let service: RunningService;
let tokenId: string;
let config: ServerConfig;
let agent: Awaited<ReturnType<typeof host>>;

beforeAll(async () => {
  service = await startTestService();
  const creator = devAccount(5);
  const created = await payingFetch(creator)(`${service.url}/tokens`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-wallet-address': creator.address },
    body: JSON.stringify({ name: 'Bridge Resource', symbol: 'BRES' }),
  });
  tokenId = (await json(created)).data.tokenId;
  const documented = documentedConfig(read('docs/agents.md'));
  config = { ...documented, args: documented.args.map((a) => a.replace('/path/to/x402-launchpad', root.replace(/\/$/, ''))) };
  // The documented settings, with the service of this test and no key (nothing here pays).
  agent = await host(config, { ...config.env, BASE_URL: service.url, WALLET_KEY: '' });
}, 60_000);

afterAll(async () => {
  await agent?.client.close();
  await service?.stop();
});

describe('the bridge command the docs give', () => {
  it('is `node` and the bin, in docs/agents.md and the README alike, and no doc names `npm run mcp`', () => {
    expect(config.command).toBe('node');
    expect(config.args).toEqual([join(root, 'bin', 'launchpad-mcp.js')]);
    const readme = documentedConfig(read('README.md'));
    expect([readme.command, readme.args]).toEqual(['node', ['/path/to/x402-launchpad/bin/launchpad-mcp.js']]);
    for (const doc of ['README.md', 'docs/agents.md', 'docs/configuration.md', 'docs/architecture.md']) expect(read(doc), doc).not.toContain('npm run mcp');
    expect((JSON.parse(read('package.json')) as { scripts: Record<string, string> }).scripts.mcp).toBeUndefined();
  });

  it('writes only JSON-RPC on stdout: the host reads every line as a message', async () => {
    const { tools } = await agent.client.listTools();
    expect(tools.map((t) => t.name)).toContain('wallet_info');
    expect((await agent.client.callTool({ name: 'get_token', arguments: { tokenId } })).isError).toBeFalsy();
    expect(agent.transport.lines.length).toBeGreaterThanOrEqual(3);
    expect(agent.transport.strays).toEqual([]);
  });

  it('(the check sees a banner: a line before the bridge, as `npm run` prints, is a stray)', async () => {
    const banner = await host(
      { command: 'sh', args: ['-c', `echo '> x402-launchpad@0.1.0 mcp'; exec node ${join(root, 'bin', 'launchpad-mcp.js')}`] },
      { ...config.env, BASE_URL: service.url, WALLET_KEY: '' },
    );
    try {
      await banner.client.listTools();
      expect(banner.transport.strays).toEqual(['> x402-launchpad@0.1.0 mcp']);
    } finally {
      await banner.client.close();
    }
  }, 60_000);
});

describe("the service's resources and prompts, through the bridge", () => {
  let direct: Client;
  beforeAll(async () => {
    direct = new Client({ name: 'launchpad-direct-test', version: '1.0.0' });
    await direct.connect(new StreamableHTTPClientTransport(new URL(`${service.url}/mcp`)));
  });
  afterAll(async () => {
    await direct?.close();
  });

  it('lists the tokens and the template, and reads a token, as /mcp answers them', async () => {
    const listed = await agent.client.listResources();
    expect(listed.resources).toEqual((await direct.listResources()).resources);
    expect(listed.resources.map((r) => r.uri)).toContain(`launchpad://token/${tokenId}`);
    expect((await agent.client.listResourceTemplates()).resourceTemplates.map((t) => t.uriTemplate)).toEqual(['launchpad://token/{tokenId}']);
    const read = await agent.client.readResource({ uri: `launchpad://token/${tokenId}` });
    expect(read.contents).toHaveLength(1);
    expect(JSON.parse((read.contents[0] as { text: string }).text)).toMatchObject({ tokenId, symbol: 'BRES' });
  });

  it("passes the service's refusal of an unknown token through: -32602 with its error", async () => {
    const unknown = 'tok_01JD5X8W3K2M9N7P4Q6R8S0T2V';
    const refusal = await agent.client.readResource({ uri: `launchpad://token/${unknown}` }).catch((e: unknown) => e);
    expect(refusal).toMatchObject({ code: -32602, data: { code: 'TOKEN_NOT_FOUND' } });
  });

  it('lists both prompts and gets one with its arguments', async () => {
    const { prompts } = await agent.client.listPrompts();
    expect(prompts.map((p) => p.name)).toEqual(['launch_token', 'trade_within_budget']);
    expect(prompts).toEqual((await direct.listPrompts()).prompts);
    const prompt = await agent.client.getPrompt({ name: 'trade_within_budget', arguments: { tokenId, budgetUsd: '2' } });
    expect((prompt.messages[0]!.content as { text: string }).text).toContain(`Buy the token ${tokenId}`);
    const bad = await agent.client.getPrompt({ name: 'no_such_prompt' }).catch((e: unknown) => e);
    expect(bad).toMatchObject({ code: -32602 });
    expect(agent.transport.strays).toEqual([]);
  });
});
