/** Contracts of the ports whose adapters need no chain: run on every such adapter. */
import { describe, expect, it } from 'vitest';
import { FakeClock } from '../../src/adapters/clock/fake/fake-clock.js';
import { SystemClock } from '../../src/adapters/clock/system/system-clock.js';
import { FakeFacilitator } from '../../src/adapters/facilitator/fake/fake-facilitator.js';
import { devnetAccount } from '../../src/adapters/chain/anvil/devnet-constants.js';
import { CachingNetworkDetector } from '../../src/adapters/network/caching/caching-network-detector.js';
import { FakeNetworkDetector } from '../../src/adapters/network/fake/fake-network-detector.js';
import { MemoryRateLimiter } from '../../src/adapters/rate-limit/memory/memory-rate-limiter.js';
import { UlidIdGenerator } from '../../src/adapters/ids/ulid/ulid-id-generator.js';
import { SequentialIdGenerator } from '../../src/adapters/ids/sequential/sequential-id-generator.js';
import { FakePayoutSender } from '../../src/adapters/payout/fake/fake-payout-sender.js';
import { FakeTokenIssuer } from '../../src/adapters/token/fake/fake-token-issuer.js';
import { CurveTradeQuoter } from '../../src/adapters/quotes/curve/curve-trade-quoter.js';
import { FixedQuoteProvider } from '../../src/adapters/quotes/fixed/fixed-quote-provider.js';
import { QuoteRouter } from '../../src/app/pricing/quote-router.js';
import { DEFAULT_SETTINGS } from '../../src/app/kit/default-settings.js';
import { FakeWalletProofVerifier } from '../../src/adapters/wallet-proof/fake/fake-wallet-proof-verifier.js';
import { SiwxWalletProofVerifier } from '../../src/adapters/wallet-proof/siwx/siwx-wallet-proof-verifier.js';
import { ALL_NETWORKS, PRODUCTION, TESTNET } from '../../src/domain/network.js';
import { createSIWxClientHook, createSIWxMessage, encodeSIWxHeader, signEVMMessage } from '@x402/extensions/sign-in-with-x';
import { randomBytes } from 'node:crypto';
import { authorizationReaderContract } from './authorization-reader.contract.js';
import { facilitatorContract, fundedDevAccount } from './facilitator.contract.js';
import { idGeneratorContract } from './id-generator.contract.js';
import { networkDetectorContract } from './network-detector.contract.js';
import { payoutSenderContract } from './payout-sender.contract.js';
import { quoteProviderContract } from './quote-provider.contract.js';
import { tokenIssuerContract } from './token-issuer.contract.js';
import { dexRouterContract } from './dex-router.contract.js';
import { FakeDexRouter } from '../../src/adapters/dex/fake/fake-dex-router.js';
import { rateLimiterContract } from './rate-limiter.contract.js';
import { tradeQuoterContract } from './trade-quoter.contract.js';
import { transferLogReaderContract } from './transfer-log-reader.contract.js';
import { FakeTransferLogReader } from '../../src/adapters/chain/fake/fake-transfer-log-reader.js';
import { walletProofVerifierContract, type ProofSpec } from './wallet-proof-verifier.contract.js';
import { receiptSignerContract } from './receipt-signer.contract.js';
import { FakeReceiptSigner } from '../../src/adapters/receipts/fake/fake-receipt-signer.js';
import { ViemReceiptSigner } from '../../src/adapters/receipts/viem/viem-receipt-signer.js';
import { verifyOfferSignatureEIP712, verifyReceiptSignatureEIP712 } from '@x402/extensions/offer-receipt';
import { generatePrivateKey } from 'viem/accounts';
import { MemoryMetrics } from '../../src/adapters/metrics/memory/memory-metrics.js';
import { PromClientMetrics } from '../../src/adapters/metrics/prom-client/prom-client-metrics.js';
import { metricsContract } from './metrics.contract.js';
import { FakeChainProbe } from '../../src/adapters/chain/fake/fake-chain-probe.js';
import { chainProbeContract } from './chain-probe.contract.js';
import { MemoryLogger } from '../../src/adapters/logging/memory/memory-logger.js';
import { PinoLogger } from '../../src/adapters/logging/pino/pino-logger.js';
import { loggerContract } from './logger.contract.js';
import { messageSignaturesContract } from './message-signatures.contract.js';
import { voucherSignaturesContract } from './voucher-signatures.contract.js';
import { ViemVoucherSignatures } from '../../src/adapters/signatures/viem/viem-voucher-signatures.js';
import { FakeVoucherSignatures } from '../../src/adapters/signatures/fake/fake-voucher-signatures.js';
import { signVoucher } from '@x402/evm/batch-settlement/client';
import { ViemMessageSignatures } from '../../src/adapters/signatures/viem/viem-message-signatures.js';
import { FakeMessageSignatures } from '../../src/adapters/signatures/fake/fake-message-signatures.js';
import { devAccount } from '../support/x402-client.js';

const clock = new SystemClock();

function fakeFacilitator() {
  const f = new FakeFacilitator({ clock });
  for (const n of ['eip155:8453', 'eip155:84532']) f.fund(n, fundedDevAccount(n as never).address, 10_000_000_000n);
  return f;
}

facilitatorContract('FakeFacilitator', async () => ({
  facilitator: fakeFacilitator(),
  funded: fundedDevAccount,
  payTo: DEFAULT_SETTINGS.payTo[TESTNET],
}));

authorizationReaderContract('FakeFacilitator (as the fake chain)', async () => {
  const f = fakeFacilitator();
  return {
    reader: f,
    facilitator: f,
    funded: fundedDevAccount,
    payTo: DEFAULT_SETTINGS.payTo[TESTNET],
    cancel: async (network, wallet, nonce) => f.cancel(network, wallet.address, nonce),
    upto: { payer: async (network) => fundedDevAccount(network), spend: async (network, wallet, nonce) => f.upto.spend(network, wallet.address, nonce) },
  };
});

payoutSenderContract('FakePayoutSender', async () => {
  const sender = new FakePayoutSender();
  return { sender, balance: async (network, wallet) => sender.balanceOf(network, wallet), removeAssetCode: async (network) => sender.removeAssetCode(network) };
});

tokenIssuerContract('FakeTokenIssuer', async () => {
  const chainClock = new FakeClock();
  const issuer = new FakeTokenIssuer({ clock: chainClock });
  return {
    issuer,
    now: async () => BigInt(Math.floor(chainClock.now().getTime() / 1000)),
    cancel: (network, token, authorizer, nonce, signature) => issuer.cancelAuthorization(network, token, authorizer, nonce, signature),
    removeCode: async (network, address) => issuer.removeCode(network, address),
  };
});

dexRouterContract('FakeDexRouter', async () => {
  const chainClock = new FakeClock();
  const dex = new FakeDexRouter({ clock: chainClock });
  let tokens = 0;
  return {
    dex,
    newToken: async () => `0x${(0xa000 + (tokens += 1)).toString(16).padStart(40, '0')}`,
    now: async () => BigInt(Math.floor(chainClock.now().getTime() / 1000)),
    tradeDirectly: async (token, usdIn) => void dex.trade(TESTNET, token, 'buy', usdIn),
    // The fake's pairs hold no unsynced balance: a donation changes nothing it reports.
    donate: async () => undefined,
    removeRouterCode: async () => dex.removeRouterCode(TESTNET),
    async fillPair(token, fill) {
      const outsider = '0x00000000000000000000000000000000000b0b05';
      dex.fillPair(TESTNET, token, { tokens: fill.tokens, usd: fill.usd, ...(fill.liquidity ? { lpTo: outsider } : {}) });
      return outsider;
    },
  };
});

tradeQuoterContract('CurveTradeQuoter', async () => new CurveTradeQuoter());

quoteProviderContract('FixedQuoteProvider', async () => ({
  provider: new FixedQuoteProvider({ clock, prices: { USDC: '1', EURC: '1.08' } }),
  clock,
  network: TESTNET,
  expected: { USDC: '1', EURC: '1.08' },
  unsupported: 'ETH',
}));

quoteProviderContract('QuoteRouter over two fixed sources', async () => {
  const limit = { points: 100, durationSeconds: 1, maxQueueSize: 10 };
  const source = (name: string, eurc: string) => ({ provider: new FixedQuoteProvider({ clock, name, prices: { USDC: '1', EURC: eurc } }), limit, timeoutMs: 1_000 });
  return {
    provider: new QuoteRouter({ clock, providers: [source('a', '1.08'), source('b', '1.0802')] }),
    clock,
    network: PRODUCTION,
    expected: { USDC: '1', EURC: '1.0801' }, // the mean of the two middle answers
    unsupported: 'ETH',
  };
});

idGeneratorContract('UlidIdGenerator', () => new UlidIdGenerator(new FakeClock()), true);
idGeneratorContract('SequentialIdGenerator', () => new SequentialIdGenerator(), true);

chainProbeContract('FakeChainProbe', async () => {
  const down = () => {
    const p = new FakeChainProbe();
    for (const n of ALL_NETWORKS) p.set(n, 'down');
    return p;
  };
  return { probe: new FakeChainProbe(), live: TESTNET, dead: down(), wrong: down(), factory: '0x4C61756E6368466163746f727900000000000000' };
});

metricsContract('PromClientMetrics', (catalogue) => new PromClientMetrics(catalogue, { processMetrics: false }));
metricsContract('MemoryMetrics', (catalogue) => new MemoryMetrics(catalogue));

loggerContract('PinoLogger (JSON lines as pino writes them)', (level) => {
  const written: string[] = [];
  const logger = new PinoLogger({ level, destination: { write: (line: string) => void written.push(line) } });
  return {
    logger,
    async lines() {
      await logger.flush();
      return written.map((line) => {
        const { level: l, msg, time, pid, hostname, ...fields } = JSON.parse(line);
        expect(new Date(time).toISOString()).toBe(time);
        expect([typeof pid, typeof hostname]).toEqual(['number', 'string']);
        return { level: l, message: msg, fields };
      });
    },
  };
});
loggerContract('MemoryLogger', (level) => {
  const logger = new MemoryLogger(level);
  return { logger, lines: async () => logger.lines };
});

rateLimiterContract('MemoryRateLimiter', async ({ points, durationSeconds }) => new MemoryRateLimiter({ points, durationSeconds }));

/** The devnet's table (docs/operations.md): accounts #1–#4 have mainnet history. */
const fakeDetector = () => new FakeNetworkDetector(Object.fromEntries([1, 2, 3, 4].map((i) => [devnetAccount(i).address, PRODUCTION])), { clock });
networkDetectorContract('FakeNetworkDetector', fakeDetector);
networkDetectorContract('CachingNetworkDetector over a fake', () => new CachingNetworkDetector(fakeDetector(), { clock }));

describe('Clock adapters', () => {
  it('SystemClock tells the time; FakeClock moves only when told', () => {
    const before = Date.now();
    const now = new SystemClock().now().getTime();
    expect(now).toBeGreaterThanOrEqual(before);
    const fake = new FakeClock('2026-01-01T00:00:00Z');
    expect(fake.now().toISOString()).toBe('2026-01-01T00:00:00.000Z');
    fake.advance(1500);
    expect(fake.now().toISOString()).toBe('2026-01-01T00:00:01.500Z');
  });
});

/** The fields of a proof for `spec` on `origin`, before signing. */
function proofInfo(spec: ProofSpec, origin: string) {
  const o = new URL(origin);
  const uri = spec.uri ?? `${o.origin}/entrypoints/token_info`;
  return {
    domain: spec.domain ?? o.host,
    uri,
    version: '1',
    nonce: spec.nonce ?? randomBytes(8).toString('hex'),
    issuedAt: (spec.issuedAt ?? new Date()).toISOString(),
    ...(spec.expirationTime ? { expirationTime: spec.expirationTime.toISOString() } : {}),
    ...(spec.notBefore ? { notBefore: spec.notBefore.toISOString() } : {}),
    resources: [uri],
    chainId: spec.chainId ?? TESTNET,
    type: 'eip191' as const,
  };
}

walletProofVerifierContract('SiwxWalletProofVerifier (@x402/extensions, proofs from its client helpers)', async () => {
  const origin = 'https://launchpad.example.com';
  return {
    verifier: new SiwxWalletProofVerifier({ origin, networks: ALL_NETWORKS }),
    origin,
    now: () => new Date(),
    async prove(spec) {
      const info = proofInfo(spec, origin);
      // The extension's own CAIP-122 message and EIP-191 signing, as createSIWxPayload does.
      const signature = await signEVMMessage(createSIWxMessage(info, spec.account.address), spec.signer ?? spec.account);
      return encodeSIWxHeader({ ...info, address: spec.account.address, signature });
    },
    async answer(challenge, account, requestUrl) {
      const hook = createSIWxClientHook(account);
      const paymentRequired = { x402Version: 2, resource: { url: requestUrl }, accepts: [], extensions: { 'sign-in-with-x': challenge } };
      const answered = await hook({ paymentRequired, requestUrl } as never);
      return answered ? answered.headers['sign-in-with-x'] : undefined;
    },
  };
});

walletProofVerifierContract('FakeWalletProofVerifier', async () => {
  const origin = 'https://launchpad.example.com';
  const fakeProof = (spec: ProofSpec) => {
    const info = proofInfo(spec, origin);
    return FakeWalletProofVerifier.encode({ ...info, address: spec.account.address, signature: FakeWalletProofVerifier.sign((spec.signer ?? spec.account).address, info.nonce) });
  };
  return {
    verifier: new FakeWalletProofVerifier({ origin, networks: ALL_NETWORKS, clock }),
    origin,
    now: () => clock.now(),
    prove: async (spec) => fakeProof(spec),
    async answer(challenge, account) {
      const { info, supportedChains } = challenge as { info: Record<string, string>; supportedChains: { chainId: string }[] };
      return fakeProof({ account, chainId: supportedChains[0]!.chainId, nonce: info.nonce, issuedAt: new Date(info.issuedAt!), uri: info.uri, domain: info.domain });
    },
  };
});

receiptSignerContract('ViemReceiptSigner (verified with @x402/extensions)', async () => ({
  signer: new ViemReceiptSigner({ key: generatePrivateKey() }),
  now: () => new Date(),
  async recover(signed) {
    if (signed.format !== 'eip712') return null;
    const verified = 'scheme' in signed.payload ? await verifyOfferSignatureEIP712(signed as never) : await verifyReceiptSignatureEIP712(signed as never);
    return verified.signer;
  },
}));

receiptSignerContract('FakeReceiptSigner', async () => ({
  signer: new FakeReceiptSigner(clock),
  now: () => clock.now(),
  recover: async (signed) => FakeReceiptSigner.recover(signed as never),
}));

transferLogReaderContract('FakeTransferLogReader (fed by FakeTokenIssuer)', async () => {
  const reader = new FakeTransferLogReader();
  const issuer = new FakeTokenIssuer({ clock: new FakeClock(), onTransfer: (t) => reader.record(t) });
  const custody = issuer.custody(TESTNET);
  let count = 0;
  return {
    reader,
    custody,
    holders: [devnetAccount(5).address, devnetAccount(6).address],
    async newToken() {
      const spec = { tokenId: `01JLOGS${(count += 1)}`, name: 'Log Token', symbol: 'LOG', totalSupply: 1_000_000_000n * 10n ** 18n };
      await issuer.broadcast(TESTNET, (await issuer.prepareDeploy(TESTNET, spec)).rawTx);
      return issuer.predictAddress(TESTNET, spec);
    },
    async transfer(token, from, to, amount) {
      if (from.toLowerCase() !== custody.toLowerCase()) {
        issuer.holderTransfer(TESTNET, token, from, to, amount);
        return reader.logs(TESTNET).at(-1)!.txHash;
      }
      const tx = await issuer.prepareTransfer(TESTNET, token, to, amount);
      await issuer.broadcast(TESTNET, tx.rawTx);
      return tx.txHash;
    },
    async transferTwice(token, a, amountA, b, amountB) {
      const txHash = `0x${'7e'.repeat(32)}`;
      reader.mine(TESTNET, [
        { token, from: custody, to: a, amount: amountA, txHash },
        { token, from: custody, to: b, amount: amountB, txHash },
      ]);
      return txHash;
    },
    async mine(blocks) {
      for (let i = 0; i < blocks; i++) reader.mine(TESTNET);
    },
  };
});

const signingAccounts = { alice: devAccount(5), mallory: devAccount(6) } as const;

messageSignaturesContract('ViemMessageSignatures (EIP-191 signatures by viem accounts)', async () => ({
  signatures: new ViemMessageSignatures(),
  sign: (wallet, message) => signingAccounts[wallet].signMessage({ message }),
  address: (wallet) => signingAccounts[wallet].address,
}));

messageSignaturesContract('FakeMessageSignatures', async () => ({
  signatures: new FakeMessageSignatures(),
  sign: async (wallet, message) => FakeMessageSignatures.sign(signingAccounts[wallet].address, message),
  address: (wallet) => signingAccounts[wallet].address,
}));

voucherSignaturesContract('ViemVoucherSignatures (EIP-712 vouchers as @x402/evm signs them)', async () => ({
  vouchers: new ViemVoucherSignatures(),
  sign: async (wallet, channelId, max) => (await signVoucher(signingAccounts[wallet], channelId as `0x${string}`, max.toString(), 'eip155:84532')).signature,
  address: (wallet) => signingAccounts[wallet].address,
}));

voucherSignaturesContract('FakeVoucherSignatures', async () => ({
  vouchers: new FakeVoucherSignatures(),
  sign: async (wallet, channelId, max) => FakeVoucherSignatures.sign(signingAccounts[wallet].address, channelId, max),
  address: (wallet) => signingAccounts[wallet].address,
}));
