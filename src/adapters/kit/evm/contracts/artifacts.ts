/**
 * Our contracts (contracts/*.sol) as compiled by `npm run contracts` (scripts/compile-contracts.ts)
 * into the committed artifacts.json beside this file; a test checks it still matches the sources.
 * Production code (the token issuer, the DEX router) and the devnet both read them from here.
 */
import type { Abi, Hex } from 'viem';
import compiled from './artifacts.json' with { type: 'json' };

export interface ContractArtifact {
  abi: Abi;
  /** Creation code, for the contracts deployed by their constructor (LaunchToken, LaunchFactory). */
  bytecode?: Hex;
  /** Runtime code, for the contracts the devnet places with setCode. */
  deployedBytecode: Hex;
}

export type ContractName =
  | 'DevEURC'
  | 'DevUSDC'
  | 'LaunchFactory'
  | 'LaunchToken'
  | 'MockAggregator'
  | 'Multicall'
  | 'Permit2'
  | 'X402BatchSettlement'
  | 'X402Erc3009DepositCollector'
  | 'X402Permit2DepositCollector'
  | 'X402UptoPermit2Proxy';

export const CONTRACTS = compiled.contracts as unknown as Record<ContractName, ContractArtifact>;
