#!/usr/bin/env node
// launchpad-mcp: the stdio MCP bridge for local agents (docs/agents.md). It runs the compiled bridge
// from dist/ when the project is built (npm run build), else the TypeScript source through tsx.
// stdout carries only MCP messages.
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const compiled = ['dist/mcp-bridge.js'].map((p) => join(root, p)).find((p) => existsSync(p));
if (compiled) {
  await import(pathToFileURL(compiled).href);
} else {
  const { register } = await import('tsx/esm/api');
  register();
  await import(pathToFileURL(join(root, 'src', 'mcp-bridge.ts')).href);
}
