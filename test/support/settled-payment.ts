/**
 * A paid call's payment, settled and stored as its request leaves it just before the application
 * step — for tests that then apply it (the request's copy) or resume it (the reconciler's).
 */
import type { AnyEntrypoint, Caller } from '../../src/app/kit/catalogue/entrypoint.js';
import { apply } from '../../src/app/payments/pipeline/application.js';
import type { PipelineDeps } from '../../src/app/payments/pipeline/deps.js';
import { TESTNET } from '../../src/domain/network.js';
import { transitionPayment } from '../../src/domain/payment.js';
import { WALLET_A } from './app-harness.js';
import { payment as fixturePayment } from './fixtures.js';

/** A payment by `caller` (WALLET_A on the testnet) for `raw` on `ep`, at the price its rules say now. */
export async function settledPayment(app: PipelineDeps, ep: AnyEntrypoint, raw: Record<string, unknown>, caller: Caller = { wallet: WALLET_A, network: TESTNET }) {
  const input: unknown = ep.parse(raw);
  const prepared = await ep.prepare(app, input, caller, 'price');
  const now = app.clock.now();
  const verified = fixturePayment({ payer: caller.wallet, amount: prepared.amount, usdValue: prepared.amount, resource: ep.name, input: raw, createdAt: now, updatedAt: now });
  const payment = transitionPayment(transitionPayment(verified, 'SETTLING', now), 'SETTLED', now, { settlementTx: '0xsettled' });
  await app.uow.run((s) => s.payments.claim(payment));
  const settlement = { success: true, transaction: '0xsettled', network: caller.network, payer: caller.wallet };
  const request = () => apply(app, { kind: 'settled', payment, entrypoint: ep, input, prepared, caller, settlement });
  const stateOf = async () => (await app.uow.run((s) => s.payments.get(payment.paymentId)))!;
  return { payment, input, prepared, request, stateOf };
}
