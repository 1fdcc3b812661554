/**
 * Which chain a network's books were kept on (docs/decisions/0066): what a node answers that no
 * other chain answers alike — its chain id, its genesis block's hash — and the code of the
 * LaunchFactory every token of the books was deployed through. A node of another chain, a reset
 * testnet, or a devnet started over answers differently on at least one of them, and the books'
 * tokens, balances and deliveries mean nothing there.
 */
import type { Network } from './network.js';

export interface ChainIdentity {
  network: Network;
  chainId: number;
  /** The hash of block 0, lower-case. */
  genesisHash: string;
  /** The LaunchFactory, lower-case: where the books' tokens were deployed from. */
  factory: string;
  /** keccak256 of the code at `factory`, lower-case; null when there is none. */
  factoryCodeHash: string | null;
}

/** One way a chain differs from the one the books were kept on, in words an operator reads. */
export interface IdentityDifference {
  what: 'chain id' | 'genesis' | 'factory code';
  /** `chain id 1 here vs 84532 recorded`, `the LaunchFactory 0x… has no code`. */
  text: string;
}

/**
 * How `seen` differs from `recorded` (empty: the same chain). A factory recorded without code
 * that has code now is no difference: it was deployed since, and no token can have come from it
 * before.
 */
export function identityDifferences(recorded: ChainIdentity, seen: ChainIdentity): IdentityDifference[] {
  const out: IdentityDifference[] = [];
  if (seen.chainId !== recorded.chainId) out.push({ what: 'chain id', text: `chain id ${seen.chainId} here vs ${recorded.chainId} recorded` });
  if (seen.genesisHash !== recorded.genesisHash) out.push({ what: 'genesis', text: `genesis block ${seen.genesisHash} here vs ${recorded.genesisHash} recorded` });
  if (recorded.factoryCodeHash !== null && seen.factoryCodeHash !== recorded.factoryCodeHash) {
    out.push({
      what: 'factory code',
      text:
        seen.factoryCodeHash === null
          ? `the LaunchFactory ${recorded.factory} has no code here`
          : `the LaunchFactory ${recorded.factory}'s code hash is ${seen.factoryCodeHash} here vs ${recorded.factoryCodeHash} recorded`,
    });
  }
  return out;
}

/** `differences` as one clause: `genesis block 0x… here vs 0x… recorded; the LaunchFactory 0x… has no code here`. */
export const describeDifferences = (differences: readonly IdentityDifference[]): string => differences.map((d) => d.text).join('; ');
