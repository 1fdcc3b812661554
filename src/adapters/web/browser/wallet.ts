/**
 * Signing with the injected wallet through viem: a wallet client over `window.ethereum`. The
 * wallet is switched to the chain a signature names first (wallets refuse typed data for another
 * chain than their active one).
 */
import { createWalletClient, custom, getAddress, type Address, type TypedDataDefinition } from 'viem';
import { injected } from './provider.js';

export const checksum = (address: string): string => getAddress(address);

function provider() {
  const p = injected();
  if (!p) throw Object.assign(new Error('No browser wallet found.'), { code: 'NO_WALLET' });
  return p;
}

export function walletClient(address: string) {
  return createWalletClient({ account: address as Address, transport: custom(provider()) });
}

/** Switches the wallet to `chainId` when it is on another chain. */
export async function ensureChain(chainId: number): Promise<void> {
  const current = Number(await provider().request({ method: 'eth_chainId' }));
  if (current === chainId) return;
  try {
    await provider().request({ method: 'wallet_switchEthereumChain', params: [{ chainId: `0x${chainId.toString(16)}` }] });
  } catch (e) {
    const code = (e as { code?: number }).code;
    if (code === 4001) throw e;
    throw Object.assign(
      new Error(`Switch your wallet to chain ${chainId} (${chainId === 8453 ? 'Base' : 'Base Sepolia'}) and try again${code === 4902 ? ': the wallet does not know this chain yet — add it first' : ''}.`),
      { code: 'WRONG_CHAIN' },
    );
  }
}

/** Signs EIP-712 typed data as `address`, on the chain its domain names. */
export async function signTypedData(address: string, typed: { domain: Record<string, unknown>; types: Record<string, unknown>; primaryType: string; message: Record<string, unknown> }): Promise<`0x${string}`> {
  const chainId = Number(typed.domain.chainId);
  if (chainId) await ensureChain(chainId);
  const { EIP712Domain: _domain, ...types } = typed.types;
  return walletClient(address).signTypedData({ ...typed, types, account: address as Address } as unknown as TypedDataDefinition & { account: Address });
}
