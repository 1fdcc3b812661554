/**
 * LaunchToken and LaunchFactory as the adapters use them: ABIs, the token's creation code and
 * the CREATE2 address a factory gives custody's deploy of a spec. Read from the one committed
 * artifact file (compiled by `npm run contracts`), which lives beside the devnet that first
 * needed it.
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { encodeAbiParameters, getContractAddress, keccak256, toBytes, type Abi, type Hex } from 'viem';

interface Artifact {
  abi: Abi;
  bytecode?: Hex;
  deployedBytecode: Hex;
}

const artifacts = JSON.parse(
  readFileSync(join(dirname(fileURLToPath(import.meta.url)), '..', 'chain', 'anvil', 'artifacts.json'), 'utf8'),
) as { contracts: Record<string, Artifact> };

const launchToken = artifacts.contracts.LaunchToken!;
const launchFactory = artifacts.contracts.LaunchFactory!;

export const LAUNCH_TOKEN_ABI = launchToken.abi;
export const LAUNCH_TOKEN_BYTECODE = launchToken.bytecode!;
export const LAUNCH_FACTORY_ABI = launchFactory.abi;

export interface LaunchSpec {
  tokenId: string;
  name: string;
  symbol: string;
  totalSupply: bigint;
}

/** CREATE2: salt = keccak256(bytes(tokenId)), init code = creation code + (name, symbol, supply, custody). */
export function predictLaunchTokenAddress(factory: Hex, custody: Hex, spec: LaunchSpec): Hex {
  const args = encodeAbiParameters(
    [{ type: 'string' }, { type: 'string' }, { type: 'uint256' }, { type: 'address' }],
    [spec.name, spec.symbol, spec.totalSupply, custody],
  );
  return getContractAddress({
    opcode: 'CREATE2',
    from: factory,
    salt: keccak256(toBytes(spec.tokenId)),
    bytecode: `${LAUNCH_TOKEN_BYTECODE}${args.slice(2)}`,
  });
}
