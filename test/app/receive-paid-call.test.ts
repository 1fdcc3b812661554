/**
 * receivePaidCall: the paid-call shell every transport shares (HTTP headers, MCP `_meta`). What a
 * transport no longer writes itself is held here: the wallet's form, a payment that is no payment
 * answered only once the input is valid, the declared extensions handed to the facilitator, the
 * refusal log with the payer and never the signature.
 */
import { describe, expect, it } from 'vitest';
import { MemoryLogger } from '../../src/adapters/logging/memory/memory-logger.js';
import { entrypoints } from '../../src/app/catalogue.js';
import type { PaidOutcome } from '../../src/app/payments/pipeline/outcome.js';
import type { PaidRequest } from '../../src/app/payments/pipeline/deps.js';
import { receivePaidCall, type PaidCall } from '../../src/app/payments/receive-paid-call.js';
import { NetworkMismatch, PaymentInvalid, ValidationError } from '../../src/domain/errors.js';
import type { PaymentPayload } from '../../src/ports/facilitator.js';

const entrypoint = entrypoints().find((e) => e.name === 'token_info')!;
const challenge: PaidOutcome = { kind: 'challenge', paymentRequired: { x402Version: 2, resource: { url: 'x' }, accepts: [] } as never };
const payer = '0x1111111111111111111111111111111111111111';
const payment = { x402Version: 2, accepted: { network: 'eip155:8453' }, payload: { authorization: { from: payer } } } as unknown as PaymentPayload;

function harness(answer: (req: PaidRequest) => Promise<PaidOutcome>) {
  const requests: PaidRequest[] = [];
  const logger = new MemoryLogger();
  const flow = { handle: (req: PaidRequest) => (requests.push(req), answer(req)) };
  const call = (over: Partial<PaidCall>) =>
    receivePaidCall({ flow, logger }, { entrypoint, input: { tokenId: 'tok_1' }, resource: { url: 'mcp://tool/token_info' }, logAs: { tool: 'token_info' }, ...over });
  return { requests, logger, call };
}

describe('receivePaidCall', () => {
  it('refuses a wallet that is no address, naming where the transport carried it', async () => {
    const { call, requests } = harness(async () => challenge);
    const refused = call({ wallet: { value: 42, field: '_meta.launchpad/wallet' } });
    await expect(refused).rejects.toBeInstanceOf(ValidationError);
    await expect(refused).rejects.toMatchObject({ issues: [{ path: '_meta.launchpad/wallet' }] });
    expect(requests).toEqual([]);
  });

  it('answers a payment that is no payment only once the input is valid: as PAYMENT_INVALID with the offers', async () => {
    const { call, requests } = harness(async () => challenge);
    const junk = { read: () => { throw new PaymentInvalid('not a payload', { reason: 'invalid_payload' }); }, identify: () => null };
    await expect(call({ payment: junk })).rejects.toMatchObject({ code: 'PAYMENT_INVALID', details: { reason: 'invalid_payload', paymentRequired: { x402Version: 2 } } });
    expect(requests[0]).toMatchObject({ payment: undefined, paymentIdentifier: null });
  });

  it('hands the pipeline the payment with the declared extensions it left out, its identifier, and names the payer', async () => {
    const applied: PaidOutcome = { kind: 'applied', response: { status: 200, body: {}, headers: {} } };
    const { call, requests } = harness(async () => applied);
    const received = await call({ payment: { read: () => payment, identify: () => 'pay-id-1234567890' }, declared: { bazaar: { info: 1 } }, wallet: { value: payer, field: 'X-Wallet-Address' } });
    expect(received).toEqual({ outcome: applied, payer: { payer, network: 'eip155:8453' } });
    expect(requests[0]).toMatchObject({ walletHint: payer, paymentIdentifier: 'pay-id-1234567890', payment: { extensions: { bazaar: { info: 1 } } } });
  });

  it('logs a refused payment with the payer and its network, as the transport names the call', async () => {
    const { call, logger } = harness(async () => {
      throw new NetworkMismatch('eip155:84532', 'eip155:8453');
    });
    await expect(call({ payment: { read: () => payment, identify: () => null }, requestId: 'r-1' })).rejects.toBeInstanceOf(NetworkMismatch);
    expect(logger.lines.filter((l) => l.message === 'payment refused; nothing charged').map((l) => l.fields)).toEqual([
      { requestId: 'r-1', tool: 'token_info', code: 'NETWORK_MISMATCH', reason: undefined, payer, network: 'eip155:8453' },
    ]);
  });
});
