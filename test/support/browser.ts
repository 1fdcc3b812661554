/**
 * A real headless Chromium for the page's tests: Debian's `chromium` package (no browser is
 * downloaded; .ci/run installs the package when it is missing) driven by playwright-core, and a
 * test EIP-1193 wallet injected into the page as `window.ethereum`. The wallet is written here:
 * it signs with a viem account (a devnet key) and forwards every other eth_ call to the devnet's
 * RPC of the chain it is on, as a browser wallet would.
 */
import { accessSync, constants, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import type { LocalAccount } from 'viem';

/** Debian's package; CHROMIUM names another build of Chromium (a newcomer's own machine). */
export const CHROMIUM = process.env.CHROMIUM ?? '/usr/bin/chromium';
export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** Screenshots of the pages the tests visit (gitignored; docs/images holds the two the README shows). */
export const ARTIFACTS = join(process.cwd(), 'test-artifacts', 'page');

export function launchBrowser(): Promise<Browser> {
  try {
    accessSync(CHROMIUM, constants.X_OK);
  } catch {
    throw new Error(`No Chromium at ${CHROMIUM}: install it (apt-get install -y chromium, as .ci/run does) or set CHROMIUM to one.`);
  }
  return chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
}

export async function screenshot(page: Page, name: string, fullPage = true): Promise<string> {
  mkdirSync(ARTIFACTS, { recursive: true });
  const path = join(ARTIFACTS, `${name}.png`);
  await page.evaluate('window.scrollTo(0, 0)'); // the sticky header stays on top of a full-page picture
  await page.screenshot({ path, fullPage });
  return path;
}

export interface TestWallet {
  /** Every method the page asked the wallet for, in order. */
  readonly calls: string[];
  chainId: number;
}

type Rpc = { result: unknown } | { error: { code: number; message: string } };

/** viem wants bigint for uint/int fields and a number for the chain id; the JSON a page sends has strings. */
function typedDataFromJson(json: string) {
  const typed = JSON.parse(json) as { domain: Record<string, unknown>; types: Record<string, { name: string; type: string }[]>; primaryType: string; message: Record<string, unknown> };
  const { EIP712Domain: _domain, ...types } = typed.types;
  const convert = (typeName: string, value: Record<string, unknown>): Record<string, unknown> =>
    Object.fromEntries(
      (types[typeName] ?? []).map(({ name, type }) => {
        const v = value[name];
        if (/^u?int\d*$/.test(type)) return [name, BigInt(v as string)];
        if (types[type]) return [name, convert(type, v as Record<string, unknown>)];
        return [name, v];
      }),
    );
  const domain = { ...typed.domain, ...(typed.domain.chainId !== undefined ? { chainId: Number(typed.domain.chainId) } : {}) };
  return { domain, types, primaryType: typed.primaryType, message: convert(typed.primaryType, typed.message) };
}

/**
 * Injects the test wallet into every page of `context` (before any script of the page runs).
 * `rpcUrls` maps chain ids to the devnet's RPC; the wallet starts on `chainId`.
 */
export async function injectWallet(context: BrowserContext, account: LocalAccount, rpcUrls: Record<number, string>, chainId: number): Promise<TestWallet> {
  const wallet: TestWallet = { calls: [], chainId };
  await context.exposeFunction('__testWallet', async (method: string, params: unknown[]): Promise<Rpc> => {
    wallet.calls.push(method);
    try {
      switch (method) {
        case 'eth_requestAccounts':
        case 'eth_accounts':
          return { result: [account.address] };
        case 'eth_chainId':
          return { result: `0x${wallet.chainId.toString(16)}` };
        case 'wallet_switchEthereumChain': {
          const wanted = Number((params[0] as { chainId: string }).chainId);
          if (!rpcUrls[wanted]) return { error: { code: 4902, message: `Unrecognized chain ${wanted}` } };
          wallet.chainId = wanted;
          return { result: null };
        }
        case 'eth_signTypedData_v4': {
          const [from, json] = params as [string, string];
          if (from.toLowerCase() !== account.address.toLowerCase()) return { error: { code: 4100, message: 'not this wallet’s account' } };
          return { result: await account.signTypedData(typedDataFromJson(json) as Parameters<LocalAccount['signTypedData']>[0]) };
        }
        case 'personal_sign':
          return { result: await account.signMessage({ message: { raw: params[0] as `0x${string}` } }) };
        default: {
          if (!method.startsWith('eth_')) return { error: { code: 4200, message: `Unsupported method ${method}` } };
          const res = await fetch(rpcUrls[wallet.chainId]!, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) });
          const body = (await res.json()) as { result?: unknown; error?: { code: number; message: string } };
          return body.error ? { error: body.error } : { result: body.result };
        }
      }
    } catch (e) {
      return { error: { code: -32603, message: e instanceof Error ? e.message : String(e) } };
    }
  });
  await context.addInitScript(`(() => {
    const listeners = {};
    window.ethereum = {
      isTestWallet: true,
      async request({ method, params }) {
        const answer = await window.__testWallet(method, params ?? []);
        if (answer.error) throw Object.assign(new Error(answer.error.message), { code: answer.error.code });
        return answer.result;
      },
      on(event, listener) { (listeners[event] ??= []).push(listener); },
      removeListener(event, listener) { listeners[event] = (listeners[event] ?? []).filter((l) => l !== listener); },
    };
  })();`);
  return wallet;
}

/** The devnet's RPC for each chain id, as a browser wallet is configured with them. */
export const devnetRpcUrls = (chains: Record<string, { rpcUrl: string }>): Record<number, string> => ({ 8453: chains['eip155:8453']!.rpcUrl, 84532: chains['eip155:84532']!.rpcUrl });

/**
 * A page in a context of its own: with the test wallet of `account` (on the testnet chain), or
 * with no wallet at all (`null`); its errors go to the test's output, where a failure is read.
 */
export async function openPage(browser: Browser, options: { account: LocalAccount | null; rpcUrls: Record<number, string>; viewport?: { width: number; height: number }; colorScheme?: 'light' | 'dark' }): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({ viewport: options.viewport ?? { width: 1280, height: 900 }, colorScheme: options.colorScheme ?? 'light' });
  if (options.account) await injectWallet(context, options.account, options.rpcUrls, 84532);
  const page = await context.newPage();
  page.on('pageerror', (e) => console.error(`page error: ${e.message}`));
  page.on('console', (m) => m.type() === 'error' && !/status of 40[29]/.test(m.text()) && console.error(`page console: ${m.text()}`));
  return { context, page };
}
