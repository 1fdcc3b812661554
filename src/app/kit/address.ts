/**
 * An EVM address in its one spelling, EIP-55 checksummed: what the app compares and stores.
 * The app's single import of viem for it: a pure function on a string — no I/O, nothing to
 * fake — so a port would be ceremony. Throws on what is not an address (the schemas check first).
 */
import { getAddress } from 'viem';

export const checksummed = (address: string): string => getAddress(address);
