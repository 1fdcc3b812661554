/** The bridge's limits: a per-call cap and a budget for the run, reserved before signing. */
import { describe, expect, it } from 'vitest';
import { SpendingLimits } from '../../../src/adapters/mcp/bridge/spending-limits.js';
import { loadBridgeConfig } from '../../../src/bootstrap/config/bridge-config.js';
import { ConfigError } from '../../../src/bootstrap/config/config-error.js';

describe('SpendingLimits', () => {
  it('refuses over the cap and past the budget; a released reservation is spent no more, a kept one stays', () => {
    const limits = new SpendingLimits(100_000n, 250_000n);
    expect(limits.reserve(100_001n)).toMatchObject({ code: 'OVER_MAX_PAYMENT' });
    const a = limits.reserve(100_000n);
    const b = limits.reserve(100_000n);
    if ('code' in a || 'code' in b) throw new Error('reserved');
    // Two calls in flight hold 0.2 between them: a third of 0.1 would pass the budget.
    expect(limits.reserve(100_000n)).toMatchObject({ code: 'OVER_BUDGET', details: { spentUsd: '0.2', budgetUsd: '0.25' } });
    b.release();
    b.release(); // once only
    a.keep();
    a.release(); // kept: no effect
    expect(limits.spent).toBe(100_000n);
    expect(limits.remaining).toBe(150_000n);
    expect(limits.reserve(100_000n)).not.toHaveProperty('code');
    expect(limits.reserve(50_000n)).not.toHaveProperty('code');
    expect(limits.remaining).toBe(0n);
  });
});

describe('the bridge settings', () => {
  it('defaults: the local service, no wallet, $0.10 per call and $1 per run, from a batch-settlement channel; empty values are unset', () => {
    expect(loadBridgeConfig({})).toEqual({ baseUrl: 'http://127.0.0.1:3000', walletKey: null, maxPaymentUsd: 100_000n, budgetUsd: 1_000_000n, payScheme: 'batch-settlement' });
    expect(loadBridgeConfig({ PAY_SCHEME: 'exact' })).toMatchObject({ payScheme: 'exact' });
    expect(() => loadBridgeConfig({ PAY_SCHEME: 'upto' })).toThrow(/PAY_SCHEME/);
    expect(loadBridgeConfig({ PORT: '4000', WALLET_KEY: '', BUDGET_USD: '' })).toMatchObject({ baseUrl: 'http://127.0.0.1:4000', walletKey: null, budgetUsd: 1_000_000n });
    expect(loadBridgeConfig({ BASE_URL: 'https://api.example.com/', MAX_PAYMENT_USD: '0.5', BUDGET_USD: '20' })).toMatchObject({
      baseUrl: 'https://api.example.com',
      maxPaymentUsd: 500_000n,
      budgetUsd: 20_000_000n,
    });
  });

  it('a bad value stops the bridge with the variable named', () => {
    expect(() => loadBridgeConfig({ WALLET_KEY: '0x1234' })).toThrow(/WALLET_KEY/);
    expect(() => loadBridgeConfig({ MAX_PAYMENT_USD: '0.1234567' })).toThrow(ConfigError);
    expect(() => loadBridgeConfig({ BASE_URL: 'ftp://x' })).toThrow(/BASE_URL/);
  });
});
