/**
 * The connected wallet: an injected EIP-1193 provider (`window.ethereum`). This module stays
 * small; viem and the x402 client load only when a wallet is used (wallet.ts, pay.ts).
 */
import { injected, type Eip1193 } from './provider.js';

export { injected };

type Listener = (address: string | null) => void;

const REMEMBER = 'launchpad.wallet';
let address: string | null = null;
const listeners = new Set<Listener>();

export const currentAddress = (): string | null => address;

export function onWalletChange(listener: Listener): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

function set(next: string | null): void {
  if (next === address) return;
  address = next;
  for (const l of listeners) l(address);
}

let watching = false;
function watch(provider: Eip1193): void {
  if (watching || !provider.on) return;
  watching = true;
  provider.on('accountsChanged', (accounts) => {
    const list = accounts as string[];
    set(list[0] ?? null);
    if (!list[0]) localStorage.removeItem(REMEMBER);
  });
}

/** Asks the wallet for an account (its own prompt). */
export async function connect(): Promise<string> {
  const provider = injected();
  if (!provider) throw Object.assign(new Error('Install a browser wallet (an EIP-1193 provider such as MetaMask, Rabby or Coinbase Wallet) and reload.'), { code: 'NO_WALLET' });
  const { checksum } = await import('./wallet.js');
  const accounts = (await provider.request({ method: 'eth_requestAccounts' })) as string[];
  if (!accounts[0]) throw new Error('The wallet gave no account.');
  watch(provider);
  localStorage.setItem(REMEMBER, '1');
  set(checksum(accounts[0]));
  return address!;
}

export function disconnect(): void {
  localStorage.removeItem(REMEMBER);
  set(null);
}

/** A wallet connected on an earlier visit comes back without a prompt. */
export async function restore(): Promise<void> {
  const provider = injected();
  if (!provider || !localStorage.getItem(REMEMBER)) return;
  try {
    const accounts = (await provider.request({ method: 'eth_accounts' })) as string[];
    if (!accounts[0]) return;
    const { checksum } = await import('./wallet.js');
    watch(provider);
    set(checksum(accounts[0]));
  } catch {
    // The wallet will ask again on Connect.
  }
}
