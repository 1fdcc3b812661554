/** The application over its in-memory adapters, with a hand-driven clock and deterministic ids. */
import { FakeClock } from '../../src/adapters/clock/fake/fake-clock.js';
import { SequentialIdGenerator } from '../../src/adapters/ids/sequential/sequential-id-generator.js';
import { MemoryUnitOfWork } from '../../src/adapters/persistence/memory/memory-unit-of-work.js';
import { CurveTradeQuoter } from '../../src/adapters/quotes/curve/curve-trade-quoter.js';
import { FixedQuoteProvider } from '../../src/adapters/quotes/fixed/fixed-quote-provider.js';
import { FakeTokenIssuer } from '../../src/adapters/token/fake/fake-token-issuer.js';
import { ViemMessageSignatures } from '../../src/adapters/signatures/viem/viem-message-signatures.js';
import { DEFAULT_SETTINGS } from '../../src/app/kit/default-settings.js';
import type { AppDeps } from '../../src/app/kit/deps.js';
import type { Settings } from '../../src/app/kit/settings.js';

export const WALLET_A = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';
export const WALLET_B = '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC';

export function makeDeps(settings: Partial<Settings> = {}): AppDeps & { clock: FakeClock; uow: MemoryUnitOfWork; tokenIssuer: FakeTokenIssuer } {
  const clock = new FakeClock('2026-11-23T12:00:00.000Z');
  return {
    uow: new MemoryUnitOfWork(),
    clock,
    ids: new SequentialIdGenerator(),
    tradeQuoter: new CurveTradeQuoter(),
    usdQuotes: new FixedQuoteProvider({ clock, prices: { USDC: '1', EURC: '1.08' } }),
    tokenIssuer: new FakeTokenIssuer({ clock }),
    // Real EIP-191 recovery (no key, no chain): the tests sign cancels with the dev accounts.
    signatures: new ViemMessageSignatures(),
    // The plain curve from the first second: tests of the launch fee turn it on.
    settings: { ...DEFAULT_SETTINGS, launchFee: { startBps: 0n, decayMs: 0n }, ...settings },
  };
}
