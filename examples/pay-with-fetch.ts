/**
 * Pay the launchpad from TypeScript with the official x402 client, @x402/fetch.
 *
 *   npx tsx examples/pay-with-fetch.ts     # PORT (or BASE_URL) and WALLET_KEY override the defaults
 */
import { decodePaymentResponseHeader, wrapFetchWithPaymentFromConfig } from '@x402/fetch';
import { ExactEvmScheme } from '@x402/evm';
import { privateKeyToAccount } from 'viem/accounts';

// The service's own setting: `PORT=4000 npm start` pairs with `PORT=4000 npx tsx examples/…`.
const BASE_URL = (process.env.BASE_URL || `http://127.0.0.1:${process.env.PORT || 3000}`).replace(/\/+$/, '');
// Devnet wallet #5: USDC on eip155:84532 only, so a testnet wallet. Bring your own key elsewhere.
const account = privateKeyToAccount(
  (process.env.WALLET_KEY ?? '0x8b3a350cf5c34c9194ca85829a2df0ec3153be0318b5e2d3348e872092edffba') as `0x${string}`,
);

type Envelope = { success: true; data: any } | { success: false; error: { code: string; message: string } };

/** The envelope's data, or an error that says in one line what the service answered. */
async function dataOf(path: string, response: Response) {
  const envelope = (await response.json()) as Envelope;
  if (!envelope.success) throw new Error(`${path}: ${response.status} ${envelope.error.code}: ${envelope.error.message}`);
  return envelope.data;
}

async function main() {
  // The service picks a wallet's network from its history; GET /positions (free) says which.
  const positions = await dataOf('/positions', await fetch(`${BASE_URL}/positions?wallet=${account.address}`));
  const network: string = positions.network;

  const pay = wrapFetchWithPaymentFromConfig(fetch, {
    schemes: [{ network: 'eip155:*', client: new ExactEvmScheme(account) }],
    // A 402 without the hint offers production first: choose the wallet's own network.
    paymentRequirementsSelector: (_version, accepts) => accepts.find((r) => r.network === network) ?? accepts[0]!,
    spendControls: { maxAmountPerPayment: '$10' }, // the client's default cap is $1 a payment
  });

  async function call(path: string, body: unknown) {
    const response = await pay(`${BASE_URL}${path}`, {
      method: 'POST',
      // The hint: the 402 offers only this wallet's network.
      headers: { 'content-type': 'application/json', 'x-wallet-address': account.address },
      body: JSON.stringify(body),
    });
    const data = await dataOf(path, response);
    const settlement = decodePaymentResponseHeader(response.headers.get('payment-response')!);
    return { data, tx: settlement.transaction };
  }

  console.log(`wallet  ${account.address} pays on ${network}`);
  // Created with a $5 dev buy in the same payment ($5.01): the creator buys first, at the base fee
  // — anyone else pays the anti-snipe launch fee for the token's first seconds (docs/api.md).
  const token = await call('/tokens', { name: 'Fetch Cat', symbol: 'FCAT', initialBuyUsd: '5' });
  console.log(`create  ${token.data.tokenId} ${token.data.symbol} on ${token.data.network}  tx ${token.tx}`);
  const bought = token.data.initialBuy;
  console.log(`buy     ${bought.tokensReceived} tokens for $${bought.usdSpent} (fee $${bought.feeUsd})  same tx`);
  const info = await call('/entrypoints/token_info', { tokenId: token.data.tokenId });
  console.log(`info    price $${info.data.priceUsd}, ${info.data.holders} holder(s)  tx ${info.tx}`);
}

// One line when it fails, not a stack: nothing listening is the usual first one.
main().catch((e: unknown) => {
  const cause = (e as { cause?: { code?: string } }).cause;
  console.error(
    e instanceof TypeError && e.message === 'fetch failed'
      ? `pay-with-fetch: nothing answers at ${BASE_URL} (${cause?.code ?? 'fetch failed'}) — start the service with \`npm start\`, or set PORT (or BASE_URL) to where it listens`
      : `pay-with-fetch: ${e instanceof Error ? e.message : String(e)}`,
  );
  process.exitCode = 1;
});
