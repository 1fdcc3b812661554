/**
 * A new user's first five minutes: against a running `npm start`, pay with the official x402
 * client from testnet and production wallets. On each network a creator launches a token (a real
 * ERC-20) with a dev buy in the same payment, at the base fee; the demo waits out the anti-snipe
 * launch fee of the token's first seconds (saying so); a buyer then buys it three ways (each
 * delivered to the wallet on chain), pays once in EURC (the second payment asset, priced at the
 * held EUR/USD quote), sells some back with a signed ReceiveWithAuthorization, and both positions
 * are printed with what explains their PnL — and the page of every token and wallet it made.
 *
 * It stays well inside the free budget (100 requests a minute per address), so it can run several
 * times in a row: the workers' results (deployment, deliveries, payout) come from one `/api/events`
 * stream instead of polling, and a 429 is waited out as its `Retry-After` says, with a line saying so.
 * What it prints fits 100 columns (demo-format.ts) and ends with what happened, in three lines.
 *
 *   npm start            # in one terminal
 *   npm run demo         # in another: http://127.0.0.1:$PORT (PORT defaults to 3000), or BASE_URL
 */
import { decodePaymentResponseHeader, wrapFetchWithPaymentFromConfig } from '@x402/fetch';
import { ExactEvmScheme } from '@x402/evm';
import { formatUnits, toHex } from 'viem';
import { mnemonicToAccount, privateKeyToAccount } from 'viem/accounts';
import { line, price, short, signedUsd, tokens, usd } from './demo-format.js';

// The same PORT that `npm start` read, so `PORT=4000 npm start` pairs with `PORT=4000 npm run demo`.
const BASE_URL = (process.env.BASE_URL || `http://127.0.0.1:${process.env.PORT || 3000}`).replace(/\/+$/, '');
const MNEMONIC = 'test test test test test test test test test test test junk';

function account(index: number) {
  const hd = mnemonicToAccount(MNEMONIC, { addressIndex: index });
  return privateKeyToAccount(toHex(hd.getHdKey().privateKey!));
}

type Wallet = ReturnType<typeof account>;

/** Paid POSTs as `wallet` (the official x402 client), a 429 waited out. */
function payer(wallet: Wallet) {
  const pay = wrapFetchWithPaymentFromConfig(fetch, {
    schemes: [{ network: 'eip155:*', client: new ExactEvmScheme(wallet) }],
    spendControls: { maxAmountPerPayment: '$20' },
  });
  return async (path: string, body: unknown) => {
    const res = await patiently(path, () =>
      pay(`${BASE_URL}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-wallet-address': wallet.address },
        body: JSON.stringify(body),
      }),
    );
    const json = (await res.json()) as { success: boolean; data: any; error?: any };
    if (!json.success) throw new Error(`${path}: ${res.status} ${JSON.stringify(json.error)}`);
    const header = res.headers.get('payment-response');
    const tx = header ? decodePaymentResponseHeader(header).transaction : '(none)';
    return { data: json.data, tx };
  };
}

const page = (path: string) => `${BASE_URL}/#/${path}`;

interface Launch {
  creator: Wallet;
  buyerIndex: number;
  buyer: Wallet;
  token: any;
}

/** What the demo did, for the three lines at its end. */
const tally = { boughtUsd: 0, soldUsd: 0, confirmed: true };

/**
 * A creator launches a token with a dev buy in the same payment: the curve's first trade, at the
 * base fee — the anti-snipe launch fee is for everyone else (docs/api.md "Fees and earnings").
 */
async function launch(label: string, creatorIndex: number, buyerIndex: number, terms: Record<string, unknown> = {}): Promise<Launch> {
  const creator = account(creatorIndex);
  const buyer = account(buyerIndex);
  console.log(`\n== ${label}: creator #${creatorIndex} ${short(creator.address)}, buyer #${buyerIndex} ${short(buyer.address)}`);
  const symbol = `D${Date.now().toString(36).slice(-5).toUpperCase()}`;
  const created = await payer(creator)('/tokens', { name: `Demo ${symbol}`, symbol, description: 'made by npm run demo', initialBuyUsd: '5', ...terms });
  const t = created.data;
  const dev = t.initialBuy;
  console.log(line('create', `${t.tokenId} ${t.symbol} on ${t.network}   tx ${short(created.tx)}`, 'paid $5.01: $0.01 to create + a $5 dev buy'));
  console.log(line('dev buy', `${tokens(dev.tokensReceived)} ${t.symbol} for ${usd(dev.usdSpent)} (fee ${usd(dev.feeUsd)}: the base ${t.curve.feeBps / 100}%, no launch fee for the creator's dev buy)`));
  if (t.vesting) console.log(line('vesting', `the dev buy stays locked in custody, released linearly until ${t.vesting.endsAt}`));
  console.log(line('page', page(`token/${t.tokenId}`)));
  return { creator, buyerIndex, buyer, token: t };
}

/**
 * For its first seconds a token's fee starts high and falls to the base fee, so bots cannot snipe
 * it: the demo waits that out instead of paying it, and says so.
 */
async function waitOutLaunchFees(launches: Launch[]): Promise<void> {
  const ends = Math.max(...launches.map((l) => (l.token.launchFee ? Date.parse(l.token.launchFee.endsAt) : 0)));
  const ms = ends - Date.now();
  if (ms <= 0) return;
  const t = launches[0]!.token;
  console.log(`\n${line('launch', `waiting ${Math.ceil(ms / 1000)} s: a new token's fee starts at ${t.launchFee.startBps / 100}% and falls to ${t.curve.feeBps / 100}% in its first seconds`, "(anti-snipe); the demo's buys wait for the base fee")}`);
  await sleep(ms + 250);
}

async function trade({ creator, buyerIndex, buyer, token: t }: Launch): Promise<void> {
  console.log(`\n== ${t.network}: buyer #${buyerIndex} ${short(buyer.address)} buys three ways, pays once in EURC, sells`);
  const call = payer(buyer);
  const b1 = await call('/entrypoints/token_buy_usd', { tokenId: t.tokenId, usdAmount: '5' });
  console.log(line('buy_usd', `${tokens(b1.data.tokensReceived)} tokens for ${usd(b1.data.usdSpent)} (fee ${usd(b1.data.feeUsd)})   tx ${short(b1.tx)}`));
  const b2 = await call('/entrypoints/token_buy_tokens', { tokenId: t.tokenId, tokens: '250000' });
  console.log(line('buy_tok', `${tokens(b2.data.tokensReceived)} tokens for ${usd(b2.data.usdSpent)} (fee ${usd(b2.data.feeUsd)})   tx ${short(b2.tx)}`));
  const quote = await get(`/api/quote?tokenId=${t.tokenId}&side=buy&usdAmount=2`);
  const b3 = await call('/entrypoints/token_buy_quote', { quoteId: quote.quoteId });
  console.log(line('buy_qte', `${tokens(b3.data.tokensReceived)} tokens for ${usd(b3.data.usdSpent)} (fee ${usd(b3.data.feeUsd)})   tx ${short(b3.tx)}`));
  for (const b of [b1, b2, b3]) tally.boughtUsd += Number(b.data.usdSpent);

  // One payment in EURC: every 402 offers USDC and EURC per network; this client prefers EURC.
  const info = await payInEurc(buyer, t.tokenId);
  console.log(line('info_eur', `${info.data.symbol} ${info.data.holders} holders   paid ${info.paid}   tx ${short(info.tx)}`));

  // The token is a real ERC-20: deployed by the deployment worker, each buy delivered to the wallet.
  const deployed = await events.next(`token ${t.tokenId}'s deployment`, (e) => (e.type === 'token.deployed' || e.type === 'token.deployment_failed') && e.tokenId === t.tokenId);
  const state = deployed.type === 'token.deployed' ? 'DEPLOYED' : 'FAILED';
  if (state !== 'DEPLOYED') tally.confirmed = false;
  console.log(line('deploy', `${deployed.data.address} ${state}   tx ${short(deployed.data.txHash ?? '')}`));
  for (const b of [b1, b2, b3]) {
    const id = b.data.delivery.deliveryId;
    const d = (await events.next(`delivery ${id}`, (e) => (e.type === 'delivery.confirmed' || e.type === 'delivery.failed') && e.data.delivery?.deliveryId === id)).data.delivery;
    if (d.state !== 'CONFIRMED') tally.confirmed = false;
    console.log(line('deliver', `${tokens(d.amount)} ${t.symbol} to the wallet: ${d.state}   tx ${short(d.txHash ?? '')}`));
  }

  // A sell: the wallet signs a ReceiveWithAuthorization so custody can pull the tokens it sells.
  const auth = await get(`/api/tokens/${t.tokenId}/sell-authorization?wallet=${buyer.address}&tokens=100000`);
  const typed = auth.typedData;
  const signature = await buyer.signTypedData({
    domain: typed.domain,
    types: typed.types,
    primaryType: typed.primaryType,
    message: { ...typed.message, value: BigInt(typed.message.value), validAfter: BigInt(typed.message.validAfter), validBefore: BigInt(typed.message.validBefore) },
  });
  const sold = await call('/entrypoints/token_sell', { tokenId: t.tokenId, tokens: '100000', tokenAuthorization: { ...auth.tokenAuthorization, signature } });
  tally.soldUsd += Number(sold.data.usdReceived);
  console.log(
    line('sell', `100000 tokens for ${usd(sold.data.usdReceived)} (fee ${usd(sold.data.feeUsd)})   tx ${short(sold.tx)}`, `pulled with the wallet's signed authorization   pull ${short(sold.data.pullTx)}`),
  );
  const payoutId = sold.data.payout.payoutId;
  const payout = (await events.next(`payout ${payoutId}`, (e) => (e.type === 'payout.confirmed' || e.type === 'payout.failed') && e.data.payout?.payoutId === payoutId)).data.payout;
  if (payout.state !== 'CONFIRMED') tally.confirmed = false;
  console.log(line('payout', `${usd(payout.amount)} to the seller: ${payout.state}, in ${payout.asset} whatever paid the fee   tx ${short(payout.txHash ?? '')}`));

  await explainPositions(t, creator, buyer, [b1, b2, b3].reduce((s, b) => s + Number(b.data.feeUsd), Number(sold.data.feeUsd)));
}

/** Both wallets' positions, each figure from what was printed above. */
async function explainPositions(t: any, creator: Wallet, buyer: Wallet, buyerFees: number): Promise<void> {
  const now = await get(`/tokens/${t.tokenId}`);
  console.log(line('price', `${price(now.priceUsd)} now, ${price(t.priceUsd)} after the dev buy: buys moved it up, the sell down a little`));
  const row = async (wallet: Wallet) => (await get(`/positions?wallet=${wallet.address}`)).items.find((i: any) => i.tokenId === t.tokenId);
  const c = await row(creator);
  const earned = await get(`/api/wallets/${creator.address}/earnings`);
  const share = earned.items.filter((i: any) => i.tokenId === t.tokenId && i.role === 'creator').reduce((s: number, i: any) => s + Number(i.accruedUsd), 0);
  const net = Number(c.unrealizedPnlUsd) + share;
  console.log(
    line(
      'position',
      `${tokens(c.balance)} ${t.symbol} (on chain ${tokens(c.onChainBalance ?? '0')}), the creator's:`,
      `cost ${usd(c.costBasisUsd)} (its fee included), value ${usd(c.valueUsd)} at the price now: ${signedUsd(c.unrealizedPnlUsd)}`,
      `earned ${signedUsd(String(share))} as the creator (half of every fee on its token): ${signedUsd(String(net))} in all`,
    ),
  );
  const b = await row(buyer);
  console.log(
    line(
      'position',
      `${tokens(b.balance)} ${t.symbol} (on chain ${tokens(b.onChainBalance ?? '0')}), the buyer's:`,
      `cost ${usd(b.costBasisUsd)}, value ${usd(b.valueUsd)}: ${signedUsd(b.unrealizedPnlUsd)}; realized on the sell ${signedUsd(b.realizedPnlUsd)}`,
      `about the ${usd(buyerFees.toFixed(6))} of fees it paid at 1%: the price must rise that much to break even`,
    ),
  );
  console.log(line('wallets', `${page(`wallet/${creator.address}`)}  (creator)`, `${page(`wallet/${buyer.address}`)}  (buyer)`));
}

/** The EURC contracts (docs/pricing.md): the official client picks the EURC offer with a selector. */
const EURC: Record<string, string> = {
  'eip155:8453': '0x60a3E35Cc302bFA44Cb288Bc5a4F316Fdb1adb42',
  'eip155:84532': '0x808456652fdb597867f38412077A9182bf77359F',
};

async function payInEurc(wallet: Wallet, tokenId: string) {
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
  const res = await patiently('/entrypoints/token_info', () =>
    pay(`${BASE_URL}/entrypoints/token_info`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-wallet-address': wallet.address },
      body: JSON.stringify({ tokenId }),
    }),
  );
  const json = (await res.json()) as { success: boolean; data: any; error?: any };
  if (!json.success) throw new Error(`token_info in EURC: ${res.status} ${JSON.stringify(json.error)}`);
  const header = res.headers.get('payment-response');
  if (!chosen || !EURC[chosen.network] || chosen.asset.toLowerCase() !== EURC[chosen.network]!.toLowerCase()) {
    throw new Error(`token_info was not paid in EURC: ${JSON.stringify(chosen)}`);
  }
  const paid = `${formatUnits(BigInt(chosen.amount), 6)} EURC for $0.001`;
  return { data: json.data, paid, tx: header ? decodePaymentResponseHeader(header).transaction : '(none)' };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Sends a request again after a 429, as long as its Retry-After says (docs/rate-limits.md), and
 * says so in one line: the free budget is per address, and other clients on it count too.
 */
async function patiently(what: string, send: () => Promise<Response>): Promise<Response> {
  for (let attempt = 1; ; attempt++) {
    const res = await send();
    if (res.status !== 429 || attempt > 5) return res;
    const seconds = Math.max(1, Number(res.headers.get('retry-after')) || 5);
    const body = (await res.json().catch(() => null)) as { error?: { details?: { limit?: number; reason?: string } } } | null;
    const why = body?.error?.details?.reason === 'too_many_event_streams'
      ? 'too many event streams open from this address'
      : `free budget spent (${body?.error?.details?.limit ?? 'its'} requests a minute)`;
    console.log(line('wait', `429 on ${what.split('?')[0]}: ${why}; retrying in ${seconds} s`));
    await sleep(seconds * 1000);
  }
}

/** A free GET's data; a 429 is waited out. */
async function get(path: string): Promise<any> {
  const res = await patiently(path, () => fetch(`${BASE_URL}${path}`));
  const json = (await res.json()) as { success: boolean; data: any; error?: any };
  if (!json.success) throw new Error(`${path.split('?')[0]}: ${res.status} ${json.error?.code}: ${json.error?.message}`);
  return json.data;
}

interface LaunchpadEvent {
  id: number;
  type: string;
  tokenId: string | null;
  data: any;
}

/**
 * One `GET /api/events` stream for the whole demo (docs/api.md "Events"): what the workers did
 * arrives as it happens, in one request instead of a poll every half second. Opened before the
 * first payment, so nothing is missed; a dropped stream resumes with Last-Event-ID.
 */
class EventStream {
  private seen: LaunchpadEvent[] = [];
  private waiters = new Set<() => void>();
  private lastId: number | undefined;
  private readonly stop = new AbortController();
  private failure: Error | undefined;

  /** Resolves once the stream is open (from then on, every event is kept). */
  async open(): Promise<void> {
    const res = await this.connect();
    void this.read(res);
  }

  close(): void {
    this.stop.abort();
  }

  /** The first event, seen or to come, that `match` accepts; a clear error if none comes in `timeoutMs`. */
  async next(what: string, match: (e: LaunchpadEvent) => boolean, timeoutMs = 90_000): Promise<LaunchpadEvent> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.seen.find(match);
      if (found) return found;
      if (this.failure) throw this.failure;
      if (Date.now() >= deadline) throw new Error(`${what} did not finish within ${timeoutMs / 1000} s — are the service's workers running (WORKERS)?`);
      await new Promise<void>((resolve) => {
        const done = () => {
          clearTimeout(timer);
          this.waiters.delete(done);
          resolve();
        };
        const timer = setTimeout(done, Math.max(0, deadline - Date.now()));
        this.waiters.add(done);
      });
    }
  }

  private async connect(): Promise<Response> {
    const res = await patiently('/api/events', () =>
      fetch(`${BASE_URL}/api/events`, {
        headers: { accept: 'text/event-stream', ...(this.lastId === undefined ? {} : { 'last-event-id': String(this.lastId) }) },
        signal: this.stop.signal,
      }),
    );
    if (!res.ok || !res.body) throw new Error(`/api/events: ${res.status}`);
    return res;
  }

  private async read(res: Response): Promise<void> {
    for (;;) {
      try {
        let buffer = '';
        const decoder = new TextDecoder();
        for await (const chunk of res.body! as unknown as AsyncIterable<Uint8Array>) {
          buffer += decoder.decode(chunk, { stream: true });
          let end: number;
          while ((end = buffer.indexOf('\n\n')) >= 0) {
            this.take(buffer.slice(0, end));
            buffer = buffer.slice(end + 2);
          }
        }
      } catch {
        // closed by us, or the connection dropped: below
      }
      if (this.stop.signal.aborted) return;
      await sleep(1_000); // the stream ended (a restart?): resume after the last event seen
      try {
        res = await this.connect();
      } catch (e) {
        if (this.stop.signal.aborted) return;
        this.failure = new Error(`the event stream broke: ${e instanceof Error ? e.message : String(e)}`);
        this.wake();
        return;
      }
    }
  }

  private take(block: string): void {
    const data = block.split('\n').filter((l) => l.startsWith('data: ')).map((l) => l.slice(6)).join('\n');
    if (!data) return; // the retry hint, a keep-alive
    const event = JSON.parse(data) as LaunchpadEvent;
    this.lastId = event.id;
    this.seen.push(event);
    this.wake();
  }

  private wake(): void {
    for (const w of [...this.waiters]) w();
  }
}

const events = new EventStream();

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
  await events.open();
  const launches = [
    await launch('testnet wallets (fresh history → eip155:84532)', 5, 6, { vesting: { cliffSeconds: 0, durationSeconds: 30 } }),
    await launch('production wallets (mainnet history → eip155:8453)', 1, 2),
  ];
  await waitOutLaunchFees(launches);
  for (const l of launches) await trade(l);
  // What happened, in three lines.
  const made = launches.map((l) => `${l.token.symbol} on ${l.token.network}`).join(', ');
  console.log(
    `\n${line(
      'done',
      `launched 2 tokens with a $5 dev buy each: ${made}`,
      `their buyers bought 3 ways for ${usd(tally.boughtUsd.toFixed(6))}, paid once in EURC, sold 100000 each: ${usd(tally.soldUsd.toFixed(6))} back`,
      tally.confirmed ? `on chain: every buy delivered, every payout paid; all on ${BASE_URL}/` : 'not everything was confirmed on chain: see the lines above',
    )}`,
  );
} catch (e) {
  console.error(explain(e));
  process.exitCode = 1;
} finally {
  events.close();
}
