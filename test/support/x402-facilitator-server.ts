/**
 * A remote x402 facilitator for tests: the official one (@x402/core's x402Facilitator with
 * @x402/evm's exact scheme, v2 and v1, settling on the given RPCs) behind a node:http server speaking the
 * x402 HTTP facilitator wire format, as @x402/core's HTTPFacilitatorClient expects it and the
 * official example facilitator serves it:
 *   POST /verify, POST /settle  {x402Version, paymentPayload, paymentRequirements}
 *                               → 200 VerifyResponse / SettleResponse (a refusal included),
 *                                 400 {error} for a malformed request, 500 {error} when it throws
 *   GET /supported              → 200 {kinds, extensions, signers}
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { x402Facilitator } from '@x402/core/facilitator';
import type { PaymentPayload, PaymentRequirements } from '@x402/core/types';
import { toFacilitatorEvmSigner } from '@x402/evm';
import { ExactEvmScheme } from '@x402/evm/exact/facilitator';
import { ExactEvmSchemeV1 } from '@x402/evm/exact/v1/facilitator';
import { createWalletClient, http, publicActions, type Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { newNonceQueue } from '../../src/adapters/kit/evm/signed-transactions.js';
import { viemChain } from '../../src/adapters/kit/evm/viem-chain.js';
import { v1NetworkName } from '../../src/adapters/kit/x402/v1-wire.js';
import type { Network } from '../../src/domain/network.js';

export interface X402FacilitatorServer {
  /** Base URL, e.g. http://127.0.0.1:40123 (the routes hang directly under it). */
  url: string;
  close(): Promise<void>;
}

/** The official facilitator, one exact-EVM signer per network; `settlementKey` pays the gas. */
function officialFacilitator(settlementKey: Hex, rpcUrls: Partial<Record<Network, string>>): x402Facilitator {
  const facilitator = new x402Facilitator();
  const account = privateKeyToAccount(settlementKey, { nonceManager: newNonceQueue() });
  for (const [network, rpcUrl] of Object.entries(rpcUrls) as [Network, string][]) {
    const client = createWalletClient({ account, chain: viemChain(network, rpcUrl), transport: http(rpcUrl) }).extend(publicActions);
    const signer = toFacilitatorEvmSigner({ ...client, address: account.address } as unknown as Parameters<typeof toFacilitatorEvmSigner>[0]);
    facilitator.register(network, new ExactEvmScheme(signer));
    facilitator.registerV1(v1NetworkName(network) as Network, new ExactEvmSchemeV1(signer)); // v1's names (decision 0046)
  }
  return facilitator;
}

export async function startX402FacilitatorServer(options: {
  settlementKey: Hex;
  rpcUrls: Partial<Record<Network, string>>;
}): Promise<X402FacilitatorServer> {
  const facilitator = officialFacilitator(options.settlementKey, options.rpcUrls);

  const answer = (res: ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  };

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const route = `${req.method} ${new URL(req.url ?? '/', 'http://facilitator').pathname}`;
    if (route === 'GET /supported') return answer(res, 200, facilitator.getSupported());
    if (route !== 'POST /verify' && route !== 'POST /settle') return answer(res, 404, { error: `no route ${route}` });

    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    let body: { paymentPayload?: PaymentPayload; paymentRequirements?: PaymentRequirements };
    try {
      body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    } catch {
      return answer(res, 400, { error: 'body is not JSON' });
    }
    const { paymentPayload, paymentRequirements } = body;
    if (!paymentPayload || !paymentRequirements) return answer(res, 400, { error: 'Missing paymentPayload or paymentRequirements' });
    try {
      const result =
        route === 'POST /verify'
          ? await facilitator.verify(paymentPayload, paymentRequirements)
          : await facilitator.settle(paymentPayload, paymentRequirements);
      answer(res, 200, result);
    } catch (e) {
      answer(res, 500, { error: e instanceof Error ? e.message : 'Unknown error' });
    }
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((e: unknown) => {
      if (!res.headersSent) answer(res, 500, { error: String(e) });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((e) => (e ? reject(e) : resolve()));
      }),
  };
}
