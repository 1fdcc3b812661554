/** The injected EIP-1193 provider (`window.ethereum`) a browser wallet puts in the page, if any. */
export interface Eip1193 {
  request(args: { method: string; params?: unknown[] | Record<string, unknown> }): Promise<unknown>;
  on?(event: string, listener: (...args: unknown[]) => void): void;
}

declare global {
  interface Window {
    ethereum?: Eip1193;
  }
}

export const injected = (): Eip1193 | null => (typeof window.ethereum?.request === 'function' ? window.ethereum : null);
