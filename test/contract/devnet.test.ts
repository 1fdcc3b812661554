/**
 * The chain adapters pass the same contracts as their fakes, on the embedded devnet. HttpFacilitator
 * talks to the official x402 facilitator behind an in-process HTTP server, settling on the devnet.
 */
import { afterAll, afterEach, beforeAll, beforeEach } from 'vitest';
import { createWalletClient, http, type Hex } from 'viem';
import { AnvilDevnet, devnetAccount, LAUNCH_FACTORY_ADDRESS } from '../../src/adapters/chain/anvil/anvil-devnet.js';
import { ViemAuthorizationReader } from '../../src/adapters/chain/viem/viem-authorization-reader.js';
import { HttpFacilitator } from '../../src/adapters/facilitator/http/http-facilitator.js';
import { LocalFacilitator } from '../../src/adapters/facilitator/local/local-facilitator.js';
import { ViemNetworkDetector } from '../../src/adapters/network/viem/viem-network-detector.js';
import { FakeClock } from '../../src/adapters/clock/fake/fake-clock.js';
import { ViemPayoutSender } from '../../src/adapters/payout/viem/viem-payout-sender.js';
import { LAUNCH_TOKEN_ABI } from '../../src/adapters/shared/launch-contracts.js';
import { viemChain } from '../../src/adapters/shared/viem-chain.js';
import { ViemTokenIssuer } from '../../src/adapters/token/viem/viem-token-issuer.js';
import { PRODUCTION, TESTNET, type Network } from '../../src/domain/network.js';
import { authorizationReaderContract } from './authorization-reader.contract.js';
import { facilitatorContract, fundedDevAccount } from './facilitator.contract.js';
import { networkDetectorContract } from './network-detector.contract.js';
import { payoutSenderContract } from './payout-sender.contract.js';
import { tokenIssuerContract } from './token-issuer.contract.js';
import { freePorts } from '../support/free-ports.js';
import { startX402FacilitatorServer, type X402FacilitatorServer } from '../support/x402-facilitator-server.js';

const SERVICE_KEY = `0x${Buffer.from(devnetAccount(0).getHdKey().privateKey!).toString('hex')}` as Hex;
let devnet: AnvilDevnet;
let snapshot: Record<Network, Hex>;
/** The HTTP facilitators started by the test that is running (one per harness: its nonces follow the reverted chain). */
const servers: X402FacilitatorServer[] = [];

beforeAll(async () => {
  devnet = await AnvilDevnet.start({ port: await freePorts() });
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
}));

authorizationReaderContract('ViemAuthorizationReader, settled through HttpFacilitator', async () => ({
  reader: new ViemAuthorizationReader({ rpcUrls: rpcUrls() }),
  facilitator: await httpFacilitator(),
  funded: fundedDevAccount,
  payTo,
  cancel: (network, wallet, nonce) => devnet.cancelAuthorization(network, wallet, nonce as Hex),
}));

payoutSenderContract('ViemPayoutSender', async () => ({
  sender: new ViemPayoutSender({ treasuryKey: SERVICE_KEY, rpcUrls: rpcUrls() }),
  balance: (network, wallet) => devnet.usdcBalance(network, wallet as Hex),
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
}));

networkDetectorContract('ViemNetworkDetector', () =>
  new ViemNetworkDetector({ mainnetRpcUrls: [devnet.chains[PRODUCTION].rpcUrl], clock: new FakeClock('2026-11-23T00:00:00Z') }),
);
