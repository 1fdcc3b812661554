/**
 * LaunchToken and LaunchFactory as the adapters use them: ABIs, the token's creation code and
 * the CREATE2 address a factory gives custody's deploy of a spec.
 */
import { encodeAbiParameters, getContractAddress, keccak256, toBytes, type Hex } from 'viem';
import { CONTRACTS } from './artifacts.js';

const launchToken = CONTRACTS.LaunchToken;
const launchFactory = CONTRACTS.LaunchFactory;

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
