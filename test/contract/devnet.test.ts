/**
 * The chain adapters pass the same contracts as their fakes, on the embedded devnet. HttpFacilitator
 * talks to the official x402 facilitator behind an in-process HTTP server, settling on the devnet.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createPublicClient, createTestClient, createWalletClient, encodeFunctionData, http, maxUint256, parseAbi, parseTransaction, type Hex } from 'viem';
import type { PrivateKeyAccount } from 'viem/accounts';
import { DEVNET_PRICE_FEEDS, DEVNET_X402_CONTRACTS, devnetAccount, LAUNCH_FACTORY_ADDRESS, MULTICALL3_ADDRESS } from '../../src/adapters/chain/anvil/devnet-constants.js';
import { CONTRACTS } from '../../src/adapters/kit/evm/contracts/artifacts.js';
import { ViemTransferLogReader } from '../../src/adapters/chain/viem/viem-transfer-log-reader.js';
import { SystemClock } from '../../src/adapters/clock/system/system-clock.js';
import { ChainlinkQuoteProvider } from '../../src/adapters/quotes/chainlink/chainlink-quote-provider.js';
import { ViemAuthorizationReader } from '../../src/adapters/chain/viem/viem-authorization-reader.js';
import { HttpFacilitator } from '../../src/adapters/facilitator/http/http-facilitator.js';
import { LocalFacilitator } from '../../src/adapters/facilitator/local/local-facilitator.js';
import { ViemNetworkDetector } from '../../src/adapters/network/viem/viem-network-detector.js';
import { FakeClock } from '../../src/adapters/clock/fake/fake-clock.js';
import { ViemPayoutSender } from '../../src/adapters/payout/viem/viem-payout-sender.js';
import { LAUNCH_FACTORY_ABI, LAUNCH_TOKEN_ABI, predictLaunchTokenAddress } from '../../src/adapters/kit/evm/contracts/launch-contracts.js';
import { viemChain } from '../../src/adapters/kit/evm/viem-chain.js';
import { ViemTokenIssuer } from '../../src/adapters/token/viem/viem-token-issuer.js';
import { PRODUCTION, TESTNET, type Network } from '../../src/domain/network.js';
import { authorizationReaderContract } from './authorization-reader.contract.js';
import { facilitatorContract, fundedDevAccount } from './facilitator.contract.js';
import { networkDetectorContract } from './network-detector.contract.js';
import { payoutSenderContract } from './payout-sender.contract.js';
import { tokenIssuerContract } from './token-issuer.contract.js';
import { dexRouterContract } from './dex-router.contract.js';
import { ViemDexRouter } from '../../src/adapters/dex/viem/viem-dex-router.js';
import { newNonceQueue } from '../../src/adapters/kit/evm/signed-transactions.js';
import { UNISWAP_V2_FACTORY, UNISWAP_V2_PAIR, UNISWAP_V2_ROUTER } from '../../src/adapters/kit/evm/contracts/uniswap-v2.js';
import { DEVNET_UNISWAP_V2 } from '../../src/adapters/chain/anvil/devnet-constants.js';
import { erc20Abi } from 'viem';
import { NETWORKS } from '../../src/domain/network.js';
import { quoteProviderContract } from './quote-provider.contract.js';
import { ViemChainProbe } from '../../src/adapters/chain/viem/viem-chain-probe.js';
import { chainProbeContract } from './chain-probe.contract.js';
import { transferLogReaderContract } from './transfer-log-reader.contract.js';

const MULTICALL_ABI = parseAbi(['struct Call { address target; bytes callData; }', 'struct Result { bool success; bytes returnData; }', 'function tryAggregate(bool requireSuccess, Call[] calls) returns (Result[] returnData)']);

import { OUTSIDER_GAS, TestDevnet } from '../support/devnet.js';
import { payout } from '../support/fixtures.js';
import { freePorts } from '../support/free-ports.js';
import { startX402FacilitatorServer, type X402FacilitatorServer } from '../support/x402-facilitator-server.js';

const SERVICE_KEY = `0x${Buffer.from(devnetAccount(0).getHdKey().privateKey!).toString('hex')}` as Hex;
let devnet: TestDevnet;
let snapshot: Record<Network, Hex>;
/** The HTTP facilitators started by the test that is running (one per harness: its nonces follow the reverted chain). */
const servers: X402FacilitatorServer[] = [];

beforeAll(async () => {
  devnet = await TestDevnet.start({ port: await freePorts() });
  await devnet.mint(TESTNET, devnetAccount(0).address, 1_000_000_000n); // the treasury's float for payouts
}, 30_000);
afterAll(async () => {
  await devnet.stop();
});
// Each test starts from the same chain state.
beforeEach(async () => {
  snapshot = await devnet.snapshot();
});
afterEach(async () => {
  for (const server of servers.splice(0)) await server.close();
  await devnet.revert(snapshot);
});

const rpcUrls = () => ({ [PRODUCTION]: devnet.chains[PRODUCTION].rpcUrl, [TESTNET]: devnet.chains[TESTNET].rpcUrl });
const payTo = devnetAccount(0).address;

chainProbeContract('ViemChainProbe (the devnet; a port nothing listens on; the URLs swapped)', async () => {
  const nothing = `http://127.0.0.1:${await freePorts(1)}`;
  return {
    probe: new ViemChainProbe({ rpcUrls: rpcUrls() }),
    live: PRODUCTION,
    dead: new ViemChainProbe({ rpcUrls: { [PRODUCTION]: nothing, [TESTNET]: nothing } }),
    wrong: new ViemChainProbe({ rpcUrls: { [PRODUCTION]: devnet.chains[TESTNET].rpcUrl } }),
    factory: LAUNCH_FACTORY_ADDRESS,
  };
});

facilitatorContract('LocalFacilitator (x402 facilitator on the devnet)', async () => ({
  facilitator: new LocalFacilitator({ settlementKey: SERVICE_KEY, rpcUrls: rpcUrls() }),
  funded: fundedDevAccount,
  payTo,
}));

async function httpFacilitator(): Promise<HttpFacilitator> {
  const server = await startX402FacilitatorServer({ settlementKey: SERVICE_KEY, rpcUrls: rpcUrls() });
  servers.push(server);
  return new HttpFacilitator({ url: server.url });
}

facilitatorContract('HttpFacilitator (the official x402 facilitator over HTTP, on the devnet)', async () => ({
  facilitator: await httpFacilitator(),
  funded: fundedDevAccount,
  payTo,
}));

authorizationReaderContract('ViemAuthorizationReader', async () => ({
  reader: new ViemAuthorizationReader({ rpcUrls: rpcUrls() }),
  facilitator: new LocalFacilitator({ settlementKey: SERVICE_KEY, rpcUrls: rpcUrls() }),
  funded: fundedDevAccount,
  payTo,
  cancel: (network, wallet, nonce) => devnet.cancelAuthorization(network, wallet, nonce as Hex),
  upto: {
    // The payer's own one-time Permit2 approval (the snapshot's revert undoes it).
    payer: async (network) => {
      const wallet = fundedDevAccount(network);
      await sendAs(network, wallet, { address: NETWORKS[network].usdc, abi: erc20Abi, functionName: 'approve', args: [PERMIT2, maxUint256] });
      return wallet;
    },
    spend: async (network, wallet, nonce) => {
      const n = BigInt(nonce);
      await sendAs(network, wallet, { address: PERMIT2, abi: CONTRACTS.Permit2.abi, functionName: 'invalidateUnorderedNonces', args: [n >> 8n, 1n << (n & 0xffn)] });
    },
  },
}));

const PERMIT2 = DEVNET_X402_CONTRACTS.find((c) => c.name === 'Permit2')!.address;

/** A transaction `wallet` sends itself, mined. */
async function sendAs(network: Network, wallet: PrivateKeyAccount, call: { address: Hex; abi: unknown; functionName: string; args: readonly unknown[] }): Promise<void> {
  const url = devnet.chains[network].rpcUrl;
  const client = createWalletClient({ account: wallet, chain: viemChain(network, url), transport: http(url) });
  await devnet.publicClient(network).waitForTransactionReceipt({ hash: await client.writeContract({ ...call, account: wallet, chain: viemChain(network, url) } as never) });
}

authorizationReaderContract('ViemAuthorizationReader, settled through HttpFacilitator', async () => ({
  reader: new ViemAuthorizationReader({ rpcUrls: rpcUrls() }),
  facilitator: await httpFacilitator(),
  funded: fundedDevAccount,
  payTo,
  cancel: (network, wallet, nonce) => devnet.cancelAuthorization(network, wallet, nonce as Hex),
}), { upto: false });

/** What a chain that is not the books' has at `address`: no code (undone by the revert after each test). */
const removeCode = async (network: Network, address: string) =>
  createTestClient({ mode: 'anvil', transport: http(devnet.chains[network].rpcUrl) }).setCode({ address: address as Hex, bytecode: '0x' });

payoutSenderContract('ViemPayoutSender', async () => ({
  sender: new ViemPayoutSender({ treasuryKey: SERVICE_KEY, rpcUrls: rpcUrls() }),
  balance: (network, wallet) => devnet.usdcBalance(network, wallet as Hex),
  removeAssetCode: (network) => removeCode(network, NETWORKS[network].usdc),
}));

tokenIssuerContract('ViemTokenIssuer', async () => ({
  issuer: new ViemTokenIssuer({
    custodyKey: SERVICE_KEY,
    rpcUrls: rpcUrls(),
    factories: { [PRODUCTION]: LAUNCH_FACTORY_ADDRESS, [TESTNET]: LAUNCH_FACTORY_ADDRESS },
  }),
  now: async () => (await devnet.publicClient(TESTNET).getBlock()).timestamp,
  // Submitted by another account: a cancellation needs only the authorizer's signature.
  cancel: async (network, token, authorizer, nonce, signature) => {
    const url = devnet.chains[network].rpcUrl;
    const wallet = createWalletClient({ account: devnetAccount(1), chain: viemChain(network, url), transport: http(url) });
    const hash = await wallet.writeContract({
      address: token as Hex,
      abi: LAUNCH_TOKEN_ABI,
      functionName: 'cancelAuthorization',
      args: [authorizer as Hex, nonce as Hex, signature as Hex],
    });
    await devnet.publicClient(network).waitForTransactionReceipt({ hash });
  },
  removeCode,
}));

dexRouterContract('ViemDexRouter (Uniswap v2 on the devnet)', async () => {
  const nonces = newNonceQueue();
  const uniswap = { [PRODUCTION]: DEVNET_UNISWAP_V2, [TESTNET]: DEVNET_UNISWAP_V2 };
  const seeders = { [PRODUCTION]: LAUNCH_FACTORY_ADDRESS, [TESTNET]: LAUNCH_FACTORY_ADDRESS };
  const dex = new ViemDexRouter({ custodyKey: SERVICE_KEY, rpcUrls: rpcUrls(), uniswap, seeders, nonces });
  const issuer = new ViemTokenIssuer({
    custodyKey: SERVICE_KEY,
    rpcUrls: rpcUrls(),
    factories: { [PRODUCTION]: LAUNCH_FACTORY_ADDRESS, [TESTNET]: LAUNCH_FACTORY_ADDRESS },
    nonces,
  });
  const client = devnet.publicClient(TESTNET);
  let count = 0;
  return {
    dex,
    removeRouterCode: () => removeCode(TESTNET, DEVNET_UNISWAP_V2.router),
    async newToken() {
      const spec = { tokenId: `01JDEX${Date.now()}${(count += 1)}`, name: 'Pool Token', symbol: 'POOL', totalSupply: 1_000_000_000n * 10n ** 18n };
      const tx = await issuer.prepareDeploy(TESTNET, spec);
      await issuer.broadcast(TESTNET, tx.rawTx);
      await client.waitForTransactionReceipt({ hash: tx.txHash as Hex });
      await devnet.mint(TESTNET, devnetAccount(0).address, 100_000n * 10n ** 6n); // the curve's USDC, as graduation finds it
      return issuer.predictAddress(TESTNET, spec);
    },
    now: async () => (await client.getBlock()).timestamp,
    async tradeDirectly(token, usdIn) {
      const trader = devnetAccount(5);
      const url = devnet.chains[TESTNET].rpcUrl;
      const wallet = createWalletClient({ account: trader, chain: viemChain(TESTNET, url), transport: http(url) });
      const usdc = NETWORKS[TESTNET].usdc as Hex;
      await client.waitForTransactionReceipt({ hash: await wallet.writeContract({ address: usdc, abi: erc20Abi, functionName: 'approve', args: [DEVNET_UNISWAP_V2.router, usdIn] }) });
      const deadline = (await client.getBlock()).timestamp + 600n;
      const hash = await wallet.writeContract({
        address: DEVNET_UNISWAP_V2.router,
        abi: UNISWAP_V2_ROUTER.abi,
        functionName: 'swapExactTokensForTokens',
        args: [usdIn, 0n, [usdc, token as Hex], trader.address, deadline],
        gas: OUTSIDER_GAS.swap,
      });
      expect((await client.waitForTransactionReceipt({ hash })).status).toBe('success');
    },
    async donate(token, side, amount) {
      const pair = (await dex.reserves(TESTNET, token))!.pair;
      if (side === 'usd') return void (await devnet.mint(TESTNET, pair as Hex, amount));
      const sent = await issuer.prepareTransfer(TESTNET, token, pair, amount);
      await issuer.broadcast(TESTNET, sent.rawTx);
      expect((await client.waitForTransactionReceipt({ hash: sent.txHash as Hex })).status).toBe('success');
    },
    async fillPair(token, fill) {
      const outsider = devnetAccount(5);
      const url = devnet.chains[TESTNET].rpcUrl;
      const wallet = createWalletClient({ account: outsider, chain: viemChain(TESTNET, url), transport: http(url) });
      const usdc = NETWORKS[TESTNET].usdc as Hex;
      const ok = async (hash: Hex) => expect((await client.waitForTransactionReceipt({ hash })).status).toBe('success');
      // The outsider bought the tokens (custody sends them here) and holds the USDC.
      const sent = await issuer.prepareTransfer(TESTNET, token, outsider.address, fill.tokens);
      await issuer.broadcast(TESTNET, sent.rawTx);
      await ok(sent.txHash as Hex);
      await devnet.mint(TESTNET, outsider.address, fill.usd);
      if (fill.liquidity) {
        for (const asset of [token as Hex, usdc]) {
          await ok(await wallet.writeContract({ address: asset, abi: erc20Abi, functionName: 'approve', args: [DEVNET_UNISWAP_V2.router, 2n ** 255n] }));
        }
        const deadline = (await client.getBlock()).timestamp + 600n;
        await ok(
          await wallet.writeContract({
            address: DEVNET_UNISWAP_V2.router,
            abi: UNISWAP_V2_ROUTER.abi,
            functionName: 'addLiquidity',
            args: [token as Hex, usdc, fill.tokens, fill.usd, 0n, 0n, outsider.address, deadline],
            gas: OUTSIDER_GAS.liquidity,
          }),
        );
        return outsider.address;
      }
      await ok(await wallet.writeContract({ address: DEVNET_UNISWAP_V2.factory, abi: UNISWAP_V2_FACTORY.abi, functionName: 'createPair', args: [token as Hex, usdc] }));
      const pair = (await client.readContract({ address: DEVNET_UNISWAP_V2.factory, abi: UNISWAP_V2_FACTORY.abi, functionName: 'getPair', args: [token as Hex, usdc] })) as Hex;
      await ok(await wallet.writeContract({ address: token as Hex, abi: erc20Abi, functionName: 'transfer', args: [pair, fill.tokens] }));
      await ok(await wallet.writeContract({ address: usdc, abi: erc20Abi, functionName: 'transfer', args: [pair, fill.usd] }));
      await ok(await wallet.writeContract({ address: pair, abi: UNISWAP_V2_PAIR.abi, functionName: 'sync', gas: OUTSIDER_GAS.swap }));
      return outsider.address;
    },
  };
});

networkDetectorContract('ViemNetworkDetector', () =>
  new ViemNetworkDetector({ mainnetRpcUrls: [devnet.chains[PRODUCTION].rpcUrl], clock: new FakeClock('2026-11-23T00:00:00Z') }),
);
quoteProviderContract('ChainlinkQuoteProvider (mock feeds on the devnet)', async () => {
  const clock = new SystemClock();
  return {
    provider: new ChainlinkQuoteProvider({ clock, rpcUrls: rpcUrls(), feeds: { [PRODUCTION]: DEVNET_PRICE_FEEDS, [TESTNET]: DEVNET_PRICE_FEEDS } }),
    clock,
    network: TESTNET,
    expected: { EURC: '1.08', USDC: '1' },
    unsupported: 'ETH',
  };
});

transferLogReaderContract('ViemTransferLogReader (on the devnet)', async () => {
  const url = devnet.chains[TESTNET].rpcUrl;
  const client = devnet.publicClient(TESTNET);
  const custody = devnetAccount(0);
  const holders = [devnetAccount(5), devnetAccount(6)] as const;
  const walletOf = (address: string) => {
    const account = [custody, ...holders].find((a) => a.address.toLowerCase() === address.toLowerCase());
    if (!account) throw new Error(`no key for ${address}`);
    return createWalletClient({ account, chain: viemChain(TESTNET, url), transport: http(url) });
  };
  const mined = async (hash: Hex) => {
    expect((await client.waitForTransactionReceipt({ hash })).status).toBe('success');
    return hash;
  };
  let count = 0;
  return {
    reader: new ViemTransferLogReader({ rpcUrls: rpcUrls(), addressesPerCall: 1 }), // one address per call: the batches are merged in order
    custody: custody.address,
    holders: [holders[0].address, holders[1].address],
    async newToken() {
      const spec = { tokenId: `01JLOGS${Date.now()}${(count += 1)}`, name: 'Log Token', symbol: 'LOG', totalSupply: 1_000_000_000n * 10n ** 18n };
      await mined(
        await walletOf(custody.address).writeContract({
          address: LAUNCH_FACTORY_ADDRESS,
          abi: LAUNCH_FACTORY_ABI,
          functionName: 'deploy',
          args: [spec.tokenId, spec.name, spec.symbol, spec.totalSupply],
        }),
      );
      return predictLaunchTokenAddress(LAUNCH_FACTORY_ADDRESS, custody.address, spec);
    },
    async transfer(token, from, to, amount) {
      return mined(await walletOf(from).writeContract({ address: token as Hex, abi: erc20Abi, functionName: 'transfer', args: [to as Hex, amount] }));
    },
    async transferTwice(token, a, amountA, b, amountB) {
      // Multicall holds the tokens and moves them twice in one call.
      const wallet = walletOf(custody.address);
      await mined(await wallet.writeContract({ address: token as Hex, abi: erc20Abi, functionName: 'transfer', args: [MULTICALL3_ADDRESS, amountA + amountB] }));
      const call = (to: string, amount: bigint) => ({ target: token as Hex, callData: encodeFunctionData({ abi: erc20Abi, functionName: 'transfer', args: [to as Hex, amount] }) });
      return mined(
        await wallet.writeContract({
          address: MULTICALL3_ADDRESS,
          abi: MULTICALL_ABI,
          functionName: 'tryAggregate',
          args: [true, [call(a, amountA), call(b, amountB)]],
        }),
      );
    },
    async mine(blocks) {
      await createTestClient({ mode: 'anvil', transport: http(url) }).mine({ blocks });
    },
  };
});

describe('SignedTransactions on anvil (decision 0056)', () => {
  it('a transfer whose nonce another took is pending while that one is the newest block, and dropped once a block lies over it', async () => {
    const ours = new ViemPayoutSender({ treasuryKey: SERVICE_KEY, rpcUrls: rpcUrls() });
    const mine = await ours.prepare(payout({ wallet: '0x000000000000000000000000000000000000d00d', amount: 1n, network: TESTNET }));
    // Another signer of the key (its own nonce queue) takes the same nonce, and is mined.
    const other = new ViemPayoutSender({ treasuryKey: SERVICE_KEY, rpcUrls: rpcUrls() });
    const theirs = await other.prepare(payout({ wallet: '0x000000000000000000000000000000000000d00e', amount: 2n, network: TESTNET }));
    expect(parseTransaction(theirs.rawTx as Hex).nonce).toBe(parseTransaction(mine.rawTx as Hex).nonce);
    await other.broadcast(TESTNET, theirs.rawTx);
    await createPublicClient({ transport: http(devnet.chains[TESTNET].rpcUrl) }).waitForTransactionReceipt({ hash: theirs.txHash as Hex });
    // Its nonce is used, but only in the newest block: a node may not serve that block's receipts yet.
    expect(await ours.status(TESTNET, mine.txHash, mine.rawTx)).toBe('pending');
    await createTestClient({ mode: 'anvil', transport: http(devnet.chains[TESTNET].rpcUrl) }).mine({ blocks: 1 });
    expect(await ours.status(TESTNET, mine.txHash, mine.rawTx)).toBe('dropped');
    expect(await other.status(TESTNET, theirs.txHash, theirs.rawTx)).toBe('confirmed');
  });
});
