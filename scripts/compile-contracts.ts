/**
 * Compiles contracts/*.sol with the solc npm package (evmVersion "paris", so the bytecode runs on
 * any devnet hardfork) into src/adapters/kit/evm/contracts/artifacts.json, which is committed and read
 * through artifacts.ts beside it (the production adapters and the devnet alike).
 * Only OpenZeppelin files free of newer opcodes can be imported: its EIP712/MessageHashUtils
 * reach utils/Bytes.sol, which uses Cancun's MCOPY.
 * Imports of `@openzeppelin/contracts/...` resolve to the installed package (pinned in
 * package.json, so the bytecode is reproducible). Every contract gets its `deployedBytecode`
 * (for anvil_setCode); those deployed by a constructor also get their creation `bytecode`.
 * Run with `npm run contracts`; a test checks the committed artifact matches the sources.
 *
 * It also copies the ABIs and creation code of the Uniswap v2 contracts the service deploys on
 * the devnet and calls on real networks from their published npm builds (never recompiled: the
 * router hard-codes the published pair's init code hash) into uniswap-v2.json beside them, so
 * the service reads them from its own tree and production installs no Uniswap package (one of
 * them is a beta); a test checks the copy still equals the packages.
 */
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import solc from 'solc';

export const ARTIFACTS = 'src/adapters/kit/evm/contracts/artifacts.json';
export const UNISWAP_ARTIFACTS = 'src/adapters/kit/evm/contracts/uniswap-v2.json';

/** The published Uniswap v2 builds the service uses, by contract name. */
const UNISWAP_BUILDS = {
  UniswapV2Factory: '@uniswap/v2-core/build/UniswapV2Factory.json',
  UniswapV2Pair: '@uniswap/v2-core/build/UniswapV2Pair.json',
  UniswapV2Router02: '@uniswap/v2-periphery/build/UniswapV2Router02.json',
  WETH9: '@uniswap/v2-periphery/build/WETH9.json',
};

/** ABIs and creation code of the published Uniswap v2 builds, with the package versions they come from. */
export function uniswapArtifacts(): { packages: Record<string, string>; contracts: Record<string, { abi: unknown[]; bytecode: string }> } {
  const require = createRequire(import.meta.url);
  const packages: Record<string, string> = {};
  const contracts: Record<string, { abi: unknown[]; bytecode: string }> = {};
  for (const [name, path] of Object.entries(UNISWAP_BUILDS)) {
    const pkg = path.split('/').slice(0, 2).join('/');
    packages[pkg] = (require(`${pkg}/package.json`) as { version: string }).version;
    const build = require(path) as { abi: unknown[]; bytecode: string };
    contracts[name] = { abi: build.abi, bytecode: `0x${build.bytecode.replace(/^0x/, '')}` };
  }
  return { packages, contracts };
}
const EVM_VERSION = 'paris';

/** Contracts deployed with their constructor (the others are only ever placed with setCode). */
const DEPLOYED_BY_CONSTRUCTOR = new Set(['LaunchToken', 'LaunchFactory']);

export interface Artifact {
  abi: unknown[];
  /** Creation code, for contracts deployed by constructor. */
  bytecode?: string;
  deployedBytecode: string;
}

const PACKAGES = ['@openzeppelin/contracts/'];

function findImport(path: string): { contents: string } | { error: string } {
  const pkg = PACKAGES.find((p) => path.startsWith(p));
  if (!pkg) return { error: `not found: ${path} (only ${PACKAGES.join(', ')} resolve outside contracts/)` };
  try {
    const root = dirname(createRequire(import.meta.url).resolve(`${pkg}package.json`));
    return { contents: readFileSync(join(root, path.slice(pkg.length)), 'utf8') };
  } catch (e) {
    return { error: (e as Error).message };
  }
}

export function compile(): Record<string, Artifact> {
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
      evmVersion: EVM_VERSION,
      optimizer: { enabled: true, runs: 200 },
      outputSelection: Object.fromEntries(Object.keys(sources).map((f) => [f, { '*': ['abi', 'evm.bytecode.object', 'evm.deployedBytecode.object'] }])),
    },
  };
  const output = JSON.parse(solc.compile(JSON.stringify(input), { import: findImport })) as {
    errors?: { severity: string; formattedMessage: string }[];
    contracts: Record<string, Record<string, { abi: unknown[]; evm: { bytecode: { object: string }; deployedBytecode: { object: string } } }>>;
  };
  const errors = (output.errors ?? []).filter((e) => e.severity === 'error');
  if (errors.length > 0) throw new Error(errors.map((e) => e.formattedMessage).join('\n'));
  const artifacts: Record<string, Artifact> = {};
  for (const [file, contracts] of Object.entries(output.contracts)) {
    if (!(file in sources)) continue; // libraries compiled along (OpenZeppelin) are not ours to ship
    for (const [name, c] of Object.entries(contracts)) {
      if (c.evm.deployedBytecode.object === '') continue; // abstract (EIP3009)
      if (c.abi.length === 0) continue; // a library of internal functions only (SignatureCheck), compiled into its users
      artifacts[name] = {
        abi: c.abi,
        ...(DEPLOYED_BY_CONSTRUCTOR.has(name) ? { bytecode: `0x${c.evm.bytecode.object}` } : {}),
        deployedBytecode: `0x${c.evm.deployedBytecode.object}`,
      };
    }
  }
  return artifacts;
}

if (process.argv[1]?.endsWith('compile-contracts.ts')) {
  const artifacts = compile();
  writeFileSync(ARTIFACTS, JSON.stringify({ compiler: solc.version(), evmVersion: EVM_VERSION, contracts: artifacts }, null, 2) + '\n');
  console.log(`wrote ${ARTIFACTS}: ${Object.keys(artifacts).join(', ')}`);
  const uniswap = uniswapArtifacts();
  writeFileSync(UNISWAP_ARTIFACTS, JSON.stringify(uniswap, null, 2) + '\n');
  console.log(`wrote ${UNISWAP_ARTIFACTS}: ${Object.keys(uniswap.contracts).join(', ')} from ${Object.entries(uniswap.packages).map(([p, v]) => `${p}@${v}`).join(', ')}`);
}
