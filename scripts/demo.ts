/**
 * A new user's first five minutes: against a running `npm start`, pay with the official x402
 * client as a testnet wallet and as a production wallet — create a token (a real ERC-20), buy it
 * three ways (each delivered to the wallet on chain), pay once in EURC (the second payment
 * asset, priced at the held EUR/USD quote), sell it back with a signed ReceiveWithAuthorization,
 * and read positions — printing every transaction.
 *
 *   npm start            # in one terminal
 *   npm run demo         # in another: http://127.0.0.1:$PORT (PORT defaults to 3000), or BASE_URL
 */
import { decodePaymentResponseHeader, wrapFetchWithPaymentFromConfig } from '@x402/fetch';
import { ExactEvmScheme } from '@x402/evm';
import { formatUnits, toHex } from 'viem';
import { mnemonicToAccount, privateKeyToAccount } from 'viem/accounts';

// The same PORT that `npm start` read, so `PORT=4000 npm start` pairs with `PORT=4000 npm run demo`.
const BASE_URL = (process.env.BASE_URL ?? `http://127.0.0.1:${process.env.PORT || 3000}`).replace(/\/+$/, '');
const MNEMONIC = 'test test test test test test test test test test test junk';

function account(index: number) {
  const hd = mnemonicToAccount(MNEMONIC, { addressIndex: index });
  return privateKeyToAccount(toHex(hd.getHdKey().privateKey!));
}

async function session(label: string, index: number) {
  const wallet = account(index);
  const pay = wrapFetchWithPaymentFromConfig(fetch, {
    schemes: [{ network: 'eip155:*', client: new ExactEvmScheme(wallet) }],
    spendControls: { maxAmountPerPayment: '$20' },
  });
  const call = async (path: string, body: unknown) => {
    const res = await pay(`${BASE_URL}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-wallet-address': wallet.address },
      body: JSON.stringify(body),
    });
    const json = (await res.json()) as { success: boolean; data: any; error?: any };
    if (!json.success) throw new Error(`${path}: ${res.status} ${JSON.stringify(json.error)}`);
    const header = res.headers.get('payment-response');
    const tx = header ? decodePaymentResponseHeader(header).transaction : '(none)';
    return { data: json.data, tx };
  };

  console.log(`\n== ${label}: wallet #${index} ${wallet.address}`);
  const symbol = `D${Date.now().toString(36).slice(-5).toUpperCase()}`;
  const created = await call('/tokens', { name: `Demo ${symbol}`, symbol, description: 'made by npm run demo' });
  const t = created.data;
  console.log(`create   ${t.tokenId} ${t.symbol} on ${t.network}            paid $0.01   tx ${created.tx}`);
  if (t.launchFee) {
    // The anti-snipe launch fee: the demo buys at once, so it pays it (docs/api.md "Fees and earnings").
    const fee = (bps: number) => `${bps / 100}%`;
    console.log(`fee      launch fee ${fee(t.launchFee.startBps)} falling to ${fee(t.curve.feeBps)} until ${t.launchFee.endsAt}: the first buys below pay more`);
  }
  const b1 = await call('/entrypoints/token_buy_usd', { tokenId: t.tokenId, usdAmount: '5' });
  console.log(`buy_usd  ${b1.data.tokensReceived} tokens for $${b1.data.usdSpent} (fee $${b1.data.feeUsd})   tx ${b1.tx}`);
  const b2 = await call('/entrypoints/token_buy_tokens', { tokenId: t.tokenId, tokens: '250000' });
  console.log(`buy_tok  ${b2.data.tokensReceived} tokens for $${b2.data.usdSpent} (fee $${b2.data.feeUsd})   tx ${b2.tx}`);
  const quote = (await (await fetch(`${BASE_URL}/api/quote?tokenId=${t.tokenId}&side=buy&usdAmount=2`)).json()) as any;
  const b3 = await call('/entrypoints/token_buy_quote', { quoteId: quote.data.quoteId });
  console.log(`buy_qte  ${b3.data.tokensReceived} tokens for $${b3.data.usdSpent} (fee $${b3.data.feeUsd})   tx ${b3.tx}`);

  // One payment in EURC: every 402 offers USDC and EURC per network; this client prefers EURC.
  const info = await payInEurc(wallet, t.tokenId);
  console.log(`info_eur ${info.data.symbol} ${info.data.holders} holders   paid ${info.paid}   tx ${info.tx}`);

  // The token is a real ERC-20: deployed by the deployment worker, each buy delivered to the wallet.
  const token = await until(`/tokens/${t.tokenId}`, (d) => d.deployment.state !== 'PENDING');
  console.log(`deploy   ${token.address} ${token.deployment.state}   tx ${token.deployment.txHash}`);
  for (const b of [b1, b2, b3]) {
    const d = await until(`/api/deliveries/${b.data.delivery.deliveryId}`, (x) => x.state === 'CONFIRMED' || x.state === 'FAILED');
    console.log(`deliver  ${d.amount} ${t.symbol} to the wallet: ${d.state}   tx ${d.txHash}`);
  }

  // A sell: the wallet signs a ReceiveWithAuthorization so custody can pull the tokens it sells.
  const auth = (await (await fetch(`${BASE_URL}/api/tokens/${t.tokenId}/sell-authorization?wallet=${wallet.address}&tokens=100000`)).json()) as any;
  const typed = auth.data.typedData;
  const signature = await wallet.signTypedData({
    domain: typed.domain,
    types: typed.types,
    primaryType: typed.primaryType,
    message: { ...typed.message, value: BigInt(typed.message.value), validAfter: BigInt(typed.message.validAfter), validBefore: BigInt(typed.message.validBefore) },
  });
  const sold = await call('/entrypoints/token_sell', { tokenId: t.tokenId, tokens: '100000', tokenAuthorization: { ...auth.data.tokenAuthorization, signature } });
  console.log(`sell     100000 tokens for $${sold.data.usdReceived} (payout ${sold.data.payout.payoutId})   pull ${sold.data.pullTx}   tx ${sold.tx}`);
  const payout = await until(`/api/payouts/${sold.data.payout.payoutId}`, (x) => x.state === 'CONFIRMED' || x.state === 'FAILED');
  console.log(`payout   $${payout.amount} to the seller: ${payout.state} in ${payout.asset} (proceeds are paid in USDC, whatever asset paid the fee)   tx ${payout.txHash}`);
  const payment = (await (await fetch(`${BASE_URL}/positions?wallet=${wallet.address}`)).json()) as any;
  const p = payment.data.items.find((i: any) => i.tokenId === t.tokenId);
  console.log(`position ${p.balance} ${p.symbol} (on chain ${p.onChainBalance}), cost $${p.costBasisUsd}, value $${p.valueUsd}, realized $${p.realizedPnlUsd}`);
  console.log(`totals   value $${payment.data.totals.valueUsd} on ${payment.data.network}`);
}

/** The EURC contracts (docs/pricing.md): the official client picks the EURC offer with a selector. */
const EURC: Record<string, string> = {
  'eip155:8453': '0x60a3E35Cc302bFA44Cb288Bc5a4F316Fdb1adb42',
  'eip155:84532': '0x808456652fdb597867f38412077A9182bf77359F',
};

async function payInEurc(wallet: ReturnType<typeof account>, tokenId: string) {
  let chosen: { amount: string; network: string; asset: string } | undefined;
  const pay = wrapFetchWithPaymentFromConfig(fetch, {
    schemes: [{ network: 'eip155:*', client: new ExactEvmScheme(wallet) }],
    // The client's spend controls take only each network's default asset (USDC) unless another
    // is allowed: allow EURC, at most 1 EURC a payment.
    spendControls: { allowedAssets: Object.entries(EURC).map(([network, asset]) => ({ network: network as `${string}:${string}`, asset, maxAmountPerPayment: '1000000' })) },
    paymentRequirementsSelector: (_version, accepts) => {
      const pick = accepts.find((r) => r.asset.toLowerCase() === EURC[r.network]?.toLowerCase()) ?? accepts[0]!;
      chosen = { amount: pick.amount, network: pick.network, asset: pick.asset };
      return pick;
    },
  });
  const res = await pay(`${BASE_URL}/entrypoints/token_info`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-wallet-address': wallet.address },
    body: JSON.stringify({ tokenId }),
  });
  const json = (await res.json()) as { success: boolean; data: any; error?: any };
  if (!json.success) throw new Error(`token_info in EURC: ${res.status} ${JSON.stringify(json.error)}`);
  const header = res.headers.get('payment-response');
  if (!chosen || !EURC[chosen.network] || chosen.asset.toLowerCase() !== EURC[chosen.network]!.toLowerCase()) {
    throw new Error(`token_info was not paid in EURC: ${JSON.stringify(chosen)}`);
  }
  const paid = `${formatUnits(BigInt(chosen.amount), 6)} EURC for $0.001`;
  return { data: json.data, paid, tx: header ? decodePaymentResponseHeader(header).transaction : '(none)' };
}

/** Polls a GET until `done` holds for its data (the workers finish within a few seconds). */
async function until(path: string, done: (data: any) => boolean): Promise<any> {
  let data: any;
  for (let i = 0; i < 60; i++) {
    data = ((await (await fetch(`${BASE_URL}${path}`)).json()) as any).data;
    if (data && done(data)) return data;
    await new Promise((r) => setTimeout(r, 500));
  }
  throw new Error(`${path} did not finish: ${JSON.stringify(data)}`);
}

/** One line for the failure a newcomer meets first (nothing listening), not a stack. */
function explain(e: unknown): string {
  if (e instanceof TypeError && e.message === 'fetch failed') {
    const cause = e.cause as { code?: string; message?: string } | undefined;
    return `demo: nothing answers at ${BASE_URL} (${cause?.code ?? cause?.message ?? 'fetch failed'}) — start the service with \`npm start\`, or set PORT (or BASE_URL) to where it listens`;
  }
  return `demo: ${e instanceof Error ? e.message : String(e)}`;
}

try {
  await fetch(`${BASE_URL}/health`); // reach the service before printing anything
  await session('testnet wallet (fresh history → eip155:84532)', 5);
  await session('production wallet (mainnet history → eip155:8453)', 1);
  console.log('\ndone');
} catch (e) {
  console.error(explain(e));
  process.exitCode = 1;
}
