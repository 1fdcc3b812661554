/**
 * Baseline: the official x402 stack — @x402/express's paymentMiddleware in front of an empty
 * handler, a $0.01 exact USDC price on eip155:84532, settling through the same in-process
 * facilitator the service uses (LocalFacilitator: @x402/core's x402Facilitator with @x402/evm's
 * exact scheme, the same viem clients and nonce queue) on the devnet the service started, with a
 * settlement key of its own so the two never share nonces.
 *   RPC_URL=<84532 rpc> SETTLEMENT_KEY=<0x…> PAY_TO=<0x…> tsx bench/servers/x402-express.ts
 */
import { createServer } from 'node:http';
import { paymentMiddleware, x402ResourceServer } from '@x402/express';
import { ExactEvmScheme } from '@x402/evm/exact/server';
import express from 'express';
import type { Hex } from 'viem';
import { LocalFacilitator } from '../../src/adapters/facilitator/local/local-facilitator.js';
import { NETWORKS, TESTNET } from '../../src/domain/network.js';

const facilitator = new LocalFacilitator({ settlementKey: process.env.SETTLEMENT_KEY as Hex, rpcUrls: { [TESTNET]: process.env.RPC_URL! } });
// The facilitator port's answers are the wire format's; only /supported is shaped differently.
const client = {
  verify: (p: never, r: never) => facilitator.verify(p, r),
  settle: (p: never, r: never) => facilitator.settle(p, r),
  getSupported: async () => ({ kinds: await facilitator.supported(), extensions: [], signers: {} }),
};
const resourceServer = new x402ResourceServer(client as never).register(TESTNET, new ExactEvmScheme());
const usdc = NETWORKS[TESTNET];
const app = express();
app.use(
  paymentMiddleware(
    {
      'POST /buy': {
        accepts: {
          scheme: 'exact',
          network: TESTNET,
          payTo: process.env.PAY_TO!,
          price: { amount: '10000', asset: usdc.usdc, extra: { ...usdc.eip712 } },
        },
        description: 'baseline',
      },
    },
    resourceServer,
  ),
);
app.post('/buy', (_req, res) => {
  res.json({});
});
const server = createServer(app);
server.keepAliveTimeout = 65_000;
server.listen(0, '127.0.0.1', () => {
  console.log(`listening on http://127.0.0.1:${(server.address() as { port: number }).port}`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
