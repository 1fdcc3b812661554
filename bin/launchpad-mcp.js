#!/usr/bin/env node
// launchpad-mcp: the stdio MCP bridge for local agents (docs/agents.md). It runs the compiled bridge
// from dist/ when the project is built (npm run build), else the TypeScript source through tsx —
// on Node 24, the project's own when the machine's is older (on-node-24.js).
// stdout carries only MCP messages.
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { onNode24 } from './on-node-24.js';

if (onNode24()) {
  const root = join(dirname(fileURLToPath(import.meta.url)), '..');
  const compiled = join(root, 'dist', 'mcp-bridge.js');
  if (existsSync(compiled)) {
    await import(pathToFileURL(compiled).href);
  } else {
    const { register } = await import('tsx/esm/api');
    register();
    await import(pathToFileURL(join(root, 'src', 'mcp-bridge.ts')).href);
  }
}
