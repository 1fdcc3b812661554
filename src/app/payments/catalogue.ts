/**
 * Payments' entries of the catalogue (docs/api.md "Free endpoints"): the payment assets' prices, a payment, a delivery, a payout, a channel.
 */
import { z } from 'zod';
import { read } from '../kit/catalogue/operation.js';
import { id } from '../kit/catalogue/read-fields.js';
import { deliveryOutput } from '../kit/output-schemas.js';
import { getChannel } from './get-channel.js';
import { getDelivery } from './get-delivery.js';
import { getPayment } from './get-payment.js';
import { getPayout } from './get-payout.js';
import { getPrices } from './get-prices.js';
import { channelOutput, paymentOutput, payoutOutput, pricesOutput } from './schemas.js';

/** The free reads of this room, by operation (the assembly in ../catalogue.ts orders them). */
export function paymentReads() {
  return {
    prices: read({
      operation: 'prices',
      tool: { name: 'get_prices', title: 'Payment asset prices' },
      description: 'USD price of each payment asset (USDC, EURC) per network, the sources asked and their answers: what a EURC payment is priced at.',
      summary: 'USD prices of the payment assets and their sources',
      http: { path: '/api/prices' },
      inputSchema: z.strictObject({}),
      outputSchema: pricesOutput,
      run: (deps) => getPrices(deps),
    }),
    get_payment: read({
      operation: 'get_payment',
      tool: { name: 'get_payment', title: 'Get a payment' },
      description:
        'The state of a payment by paymentId: APPLIED (done), REFUNDED (paid back), REJECTED or FAILED (nothing charged), or still VERIFIED/SETTLING/SETTLED. Call it after a paid tool answered status "pending".',
      summary: 'the state of a payment (after a 202 "pending")',
      http: { path: '/api/payments/:paymentId', lookup: true },
      inputSchema: z.strictObject({ paymentId: id('pay', 'payment') }),
      outputSchema: paymentOutput,
      run: (deps, q) => getPayment(deps, q.paymentId),
    }),
    get_delivery: read({
      operation: 'get_delivery',
      tool: { name: 'get_delivery', title: 'Get a delivery' },
      description: "Where a buy's tokens are on their way to the buyer's wallet (PENDING, SENT, CONFIRMED), by the deliveryId a buy answered.",
      summary: "a buy's tokens on their way to the wallet",
      http: { path: '/api/deliveries/:deliveryId', lookup: true },
      inputSchema: z.strictObject({ deliveryId: id('dlv', 'delivery') }),
      outputSchema: deliveryOutput,
      run: (deps, q) => getDelivery(deps, q.deliveryId),
    }),
    get_payout: read({
      operation: 'get_payout',
      tool: { name: 'get_payout', title: 'Get a payout' },
      description: 'A USDC payout the service owes a wallet (sell proceeds, a refund, fee shares): its amount, state and transaction, by the payoutId a sell answered.',
      summary: 'sell proceeds, refunds and fee shares paid in USDC',
      http: { path: '/api/payouts/:payoutId', lookup: true },
      inputSchema: z.strictObject({ payoutId: id('pout', 'payout') }),
      outputSchema: payoutOutput,
      run: (deps, q) => getPayout(deps, q.payoutId),
    }),
    get_channel: read({
      operation: 'get_channel',
      tool: { name: 'get_channel', title: 'Get a payment channel' },
      description:
        'A batch-settlement payment channel by channelId (docs "Pay once, call many"): its deposit, what was charged and claimed, and what a cooperative refund gives back now.',
      summary: 'a batch-settlement channel: deposit, charged, claimed, refundable',
      http: { path: '/api/channels/:channelId', lookup: true },
      inputSchema: z.strictObject({ channelId: z.string().regex(/^0x[0-9a-fA-F]{64}$/, 'must be a channel id (0x + 64 hex)').transform((v) => v.toLowerCase()) }),
      outputSchema: channelOutput,
      run: (deps, q) => getChannel(deps, q.channelId),
    }),
  };
}
