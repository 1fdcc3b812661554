/**
 * Compiles contracts/*.sol with the solc npm package (evmVersion "paris", so the bytecode runs on
 * any devnet hardfork) into src/adapters/chain/anvil/artifacts.json, which is committed.
 * Run with `npm run contracts`; a test checks the committed artifact matches the sources.
 */
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import solc from 'solc';

export const ARTIFACTS = 'src/adapters/chain/anvil/artifacts.json';

export function compile(): Record<string, { abi: unknown[]; deployedBytecode: string }> {
  const sources = Object.fromEntries(
    readdirSync('contracts')
      .filter((f) => f.endsWith('.sol'))
      .sort()
      .map((f) => [f, { content: readFileSync(join('contracts', f), 'utf8') }]),
  );
  const input = {
    language: 'Solidity',
    sources,
    settings: {
      evmVersion: 'paris',
      optimizer: { enabled: true, runs: 200 },
      outputSelection: { '*': { '*': ['abi', 'evm.deployedBytecode.object'] } },
    },
  };
  const output = JSON.parse(solc.compile(JSON.stringify(input))) as {
    errors?: { severity: string; formattedMessage: string }[];
    contracts: Record<string, Record<string, { abi: unknown[]; evm: { deployedBytecode: { object: string } } }>>;
  };
  const errors = (output.errors ?? []).filter((e) => e.severity === 'error');
  if (errors.length > 0) throw new Error(errors.map((e) => e.formattedMessage).join('\n'));
  const artifacts: Record<string, { abi: unknown[]; deployedBytecode: string }> = {};
  for (const file of Object.values(output.contracts)) {
    for (const [name, c] of Object.entries(file)) artifacts[name] = { abi: c.abi, deployedBytecode: `0x${c.evm.deployedBytecode.object}` };
  }
  return artifacts;
}

if (process.argv[1]?.endsWith('compile-contracts.ts')) {
  const artifacts = compile();
  writeFileSync(ARTIFACTS, JSON.stringify({ compiler: solc.version(), evmVersion: 'paris', contracts: artifacts }, null, 2) + '\n');
  console.log(`wrote ${ARTIFACTS}: ${Object.keys(artifacts).join(', ')}`);
}
