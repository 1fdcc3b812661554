/**
 * Pay the launchpad from TypeScript with the official x402 client, @x402/fetch.
 *
 *   npx tsx examples/pay-with-fetch.ts     # BASE_URL and WALLET_KEY override the defaults
 */
import { decodePaymentResponseHeader, wrapFetchWithPaymentFromConfig } from '@x402/fetch';
import { ExactEvmScheme } from '@x402/evm';
import { privateKeyToAccount } from 'viem/accounts';

const BASE_URL = process.env.BASE_URL ?? 'http://127.0.0.1:3000';
// Devnet wallet #5: USDC on eip155:84532 only, so a testnet wallet. Bring your own key elsewhere.
const account = privateKeyToAccount(
  (process.env.WALLET_KEY ?? '0x8b3a350cf5c34c9194ca85829a2df0ec3153be0318b5e2d3348e872092edffba') as `0x${string}`,
);

// The service picks a wallet's network from its history; GET /positions (free) says which.
const positions = (await (await fetch(`${BASE_URL}/positions?wallet=${account.address}`)).json()) as { data: { network: string } };
const network = positions.data.network;

const pay = wrapFetchWithPaymentFromConfig(fetch, {
  schemes: [{ network: 'eip155:*', client: new ExactEvmScheme(account) }],
  // A 402 without the hint offers production first: choose the wallet's own network.
  paymentRequirementsSelector: (_version, accepts) => accepts.find((r) => r.network === network) ?? accepts[0]!,
  spendControls: { maxAmountPerPayment: '$10' }, // the client's default cap is $1 a payment
});

type Envelope = { success: true; data: any } | { success: false; error: { code: string; message: string } };

async function call(path: string, body: unknown) {
  const response = await pay(`${BASE_URL}${path}`, {
    method: 'POST',
    // The hint: the 402 offers only this wallet's network.
    headers: { 'content-type': 'application/json', 'x-wallet-address': account.address },
    body: JSON.stringify(body),
  });
  const envelope = (await response.json()) as Envelope;
  if (!envelope.success) throw new Error(`${path}: ${response.status} ${envelope.error.code}: ${envelope.error.message}`);
  const settlement = decodePaymentResponseHeader(response.headers.get('payment-response')!);
  return { data: envelope.data, tx: settlement.transaction };
}

console.log(`wallet  ${account.address} pays on ${network}`);
const token = await call('/tokens', { name: 'Fetch Cat', symbol: 'FCAT' });
console.log(`create  ${token.data.tokenId} ${token.data.symbol} on ${token.data.network}  tx ${token.tx}`);
const bought = await call('/entrypoints/token_buy_usd', { tokenId: token.data.tokenId, usdAmount: '5' });
console.log(`buy     ${bought.data.tokensReceived} tokens for $${bought.data.usdSpent}  tx ${bought.tx}`);
const info = await call('/entrypoints/token_info', { tokenId: token.data.tokenId });
console.log(`info    price $${info.data.priceUsd}, ${info.data.holders} holder(s)  tx ${info.tx}`);
