/** The chain adapters pass the same contracts as their fakes, on the embedded devnet. */
import { afterAll, afterEach, beforeAll, beforeEach } from 'vitest';
import type { Hex } from 'viem';
import { AnvilDevnet, DEVNET_PRICE_FEEDS, devnetAccount } from '../../src/adapters/chain/anvil/anvil-devnet.js';
import { SystemClock } from '../../src/adapters/clock/system/system-clock.js';
import { ChainlinkQuoteProvider } from '../../src/adapters/quotes/chainlink/chainlink-quote-provider.js';
import { ViemAuthorizationReader } from '../../src/adapters/chain/viem/viem-authorization-reader.js';
import { LocalFacilitator } from '../../src/adapters/facilitator/local/local-facilitator.js';
import { ViemPayoutSender } from '../../src/adapters/payout/viem/viem-payout-sender.js';
import { PRODUCTION, TESTNET, type Network } from '../../src/domain/network.js';
import { authorizationReaderContract } from './authorization-reader.contract.js';
import { facilitatorContract, fundedDevAccount } from './facilitator.contract.js';
import { payoutSenderContract } from './payout-sender.contract.js';
import { quoteProviderContract } from './quote-provider.contract.js';

import { freePorts } from '../support/free-ports.js';
const SERVICE_KEY = `0x${Buffer.from(devnetAccount(0).getHdKey().privateKey!).toString('hex')}` as Hex;
let devnet: AnvilDevnet;
let snapshot: Record<Network, Hex>;

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
  await devnet.revert(snapshot);
});

const rpcUrls = () => ({ [PRODUCTION]: devnet.chains[PRODUCTION].rpcUrl, [TESTNET]: devnet.chains[TESTNET].rpcUrl });
const payTo = devnetAccount(0).address;

facilitatorContract('LocalFacilitator (x402 facilitator on the devnet)', async () => ({
  facilitator: new LocalFacilitator({ settlementKey: SERVICE_KEY, rpcUrls: rpcUrls() }),
  funded: fundedDevAccount,
  payTo,
}));

authorizationReaderContract('ViemAuthorizationReader', async () => ({
  reader: new ViemAuthorizationReader({ rpcUrls: rpcUrls() }),
  facilitator: new LocalFacilitator({ settlementKey: SERVICE_KEY, rpcUrls: rpcUrls() }),
  funded: fundedDevAccount,
  payTo,
}));

payoutSenderContract('ViemPayoutSender', async () => ({
  sender: new ViemPayoutSender({ treasuryKey: SERVICE_KEY, rpcUrls: rpcUrls() }),
  balance: (network, wallet) => devnet.usdcBalance(network, wallet as Hex),
}));

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
