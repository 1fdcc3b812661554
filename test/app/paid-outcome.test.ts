/**
 * What a transport sees of a paid request: the flow's outcome, one tagged union with no HTTP in it
 * beyond the answer stored with the payment. The Koa adapter renders it; an MCP adapter will
 * switch on the same kinds.
 */
import { decodePaymentSignatureHeader } from '@x402/core/http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeFacilitator } from '../../src/adapters/facilitator/fake/fake-facilitator.js';
import type { RunningService } from '../../src/bootstrap/compose.js';
import type { PaidRequest } from '../../src/app/payments/pipeline/deps.js';
import { verifiedIn, type Outcome, type PaidOutcome } from '../../src/app/payments/pipeline/outcome.js';
import { TESTNET } from '../../src/domain/network.js';
import type { PaymentPayload } from '../../src/ports/facilitator.js';
import { ShiftableClock, startTestService } from '../support/service.js';
import { devAccount, signPayment } from '../support/x402-client.js';

const wallet = devAccount(6); // a testnet wallet
const clock = new ShiftableClock();
const facilitator = new FakeFacilitator({ clock, defaultBalance: 10_000_000_000n });
let service: RunningService;

beforeAll(async () => {
  service = await startTestService({ ports: { clock, facilitator } });
});
afterAll(() => service.stop());

function create(symbol: string, payment?: PaymentPayload): Promise<PaidOutcome> {
  const entrypoint = service.application.entrypoints.get('token_create')!;
  const req: PaidRequest = {
    entrypoint,
    rawInput: { name: `Outcome ${symbol}`, symbol },
    resource: { url: `${service.url}/tokens`, description: entrypoint.description, mimeType: 'application/json' },
    walletHint: wallet.address,
    payment,
  };
  return service.application.flow.handle(req);
}

function challengeOf(outcome: PaidOutcome): Outcome<'challenge'> {
  if (outcome.kind !== 'challenge') throw new Error(`expected a challenge, got ${outcome.kind}`);
  return outcome;
}

async function paid(symbol: string): Promise<PaymentPayload> {
  const { paymentRequired } = challengeOf(await create(symbol));
  return decodePaymentSignatureHeader(await signPayment(wallet, paymentRequired as never)) as PaymentPayload;
}

describe('the outcome of a paid request', () => {
  it('no payment is a challenge on the wallet’s network; paid, it is applied with the settlement; the same payment again is replayed unverified', async () => {
    const challenge = challengeOf(await create('OUTA'));
    // USDC, EURC; then the same by batch-settlement
    expect(challenge.paymentRequired.accepts.map((a) => [a.scheme, a.network])).toEqual([['exact', TESTNET], ['exact', TESTNET], ['batch-settlement', TESTNET], ['batch-settlement', TESTNET]]);
    expect(verifiedIn(challenge)).toBe(false);

    const payment = await paid('OUTA');
    const applied = await create('OUTA', payment);
    expect(applied).toMatchObject({ kind: 'applied', response: { status: 201, headers: {}, settlement: { success: true, network: TESTNET } } });
    expect(verifiedIn(applied)).toBe(true);

    const again = await create('OUTA', payment);
    expect(again).toEqual({ kind: 'replayed', verified: false, response: (applied as Outcome<'applied'>).response, paymentId: (applied as Outcome<'applied'>).paymentId });
    expect(verifiedIn(again)).toBe(false);
  });

  it('a settlement that does not answer success is pending: a 202 that says where to look, stored for the same payment', async () => {
    const payment = await paid('OUTB');
    facilitator.failNextSettle('settlement_pending');
    const pending = await create('OUTB', payment);
    expect(pending).toMatchObject({ kind: 'pending', response: { status: 202, body: { data: { status: 'pending', reason: 'settlement_pending' } } } });
    const paymentId = (pending as Outcome<'pending'>).response.headers.Location!.split('/').pop();
    expect(await service.application.deps.uow.run((s) => s.payments.getResponse(paymentId!))).toEqual((pending as Outcome<'pending'>).response);
  });
});
