/**
 * The in-process facilitator on the devnet.
 *
 * The settlement path survives a nonce taken elsewhere (docs/decisions/0031): another transaction
 * of the settlement key takes the nonce a settlement was about to use, or replaces it in the
 * node's pool before it is mined — the payment settles all the same, once, and the facilitator
 * names the transaction that moved the money.
 *
 * And a payment's verify and settle ask the chain only what they need (decision 0054): counted.
 */
import { createServer, type Server } from 'node:http';
import { createTestClient, createWalletClient, http, type Hex } from 'viem';
import { expect, it } from 'vitest';
import { devnetAccount, USDC_ABI } from '../../../src/adapters/chain/anvil/devnet-constants.js';
import { LocalFacilitator } from '../../../src/adapters/facilitator/local/local-facilitator.js';
import { lookDelay } from '../../../src/adapters/facilitator/local/settlement-sender.js';
import { newNonceQueue, type NonceQueue } from '../../../src/adapters/kit/evm/signed-transactions.js';
import { viemChain } from '../../../src/adapters/kit/evm/viem-chain.js';
import { requirementsFor } from '../../../src/app/payments/requirements.js';
import { NETWORKS, PRODUCTION, TESTNET } from '../../../src/domain/network.js';
import { fundedDevAccount, sign } from '../../contract/facilitator.contract.js';
import { devnetPerFile } from '../../support/devnet.js';
import { pollUntil, waitFor } from '../../support/wait.js';


const KEY = `0x${Buffer.from(devnetAccount(0).getHdKey().privateKey!).toString('hex')}` as Hex;
const SETTLER = devnetAccount(0).address;
const devnet = devnetPerFile();

const rpcUrls = () => ({ [PRODUCTION]: devnet.chains[PRODUCTION].rpcUrl, [TESTNET]: devnet.chains[TESTNET].rpcUrl });
const chain = () => devnet.publicClient(TESTNET);
const anvil = () => createTestClient({ mode: 'anvil', transport: http(devnet.chains[TESTNET].rpcUrl) });
const wallet = fundedDevAccount(TESTNET);

/** The key's transactions the node holds and has not mined: pending, or queued behind a nonce not yet used. */
async function heldByTheNode(): Promise<number> {
  const pool = await anvil().getTxpoolContent();
  const txs = [...Object.values(pool.pending), ...Object.values(pool.queued)].flatMap((byNonce) => Object.values(byNonce));
  return txs.filter((tx) => tx.from.toLowerCase() === SETTLER.toLowerCase()).length;
}

/** A queue that hands out, once, a nonce another transaction of the key has just used: what a race with another signer leaves. */
function takenOnce(queue: NonceQueue): NonceQueue {
  let once = true;
  return {
    ...queue,
    consume: async (p) => {
      const next = await queue.consume(p);
      if (!once || next === 0) return next;
      once = false;
      queue.reset(p);
      return next - 1;
    },
  };
}

async function payment() {
  const r = requirementsFor(TESTNET, 10_000n, SETTLER);
  return { r, payload: await sign(wallet, r) };
}

const used = async (payload: Awaited<ReturnType<typeof payment>>['payload']) =>
  chain().readContract({
    address: NETWORKS[TESTNET].usdc,
    abi: USDC_ABI,
    functionName: 'authorizationState',
    args: [wallet.address, (payload.payload as { authorization: { nonce: Hex } }).authorization.nonce],
  });

it('a settlement whose nonce another transaction took is signed again with the next, and settles', async () => {
  // One settlement first, so the key has a used nonce to hand out again.
  const logs: string[] = [];
  const warm = new LocalFacilitator({ settlementKey: KEY, rpcUrls: rpcUrls() });
  const first = await payment();
  expect((await warm.settle(first.payload, first.r)).success).toBe(true);

  const facilitator = new LocalFacilitator({ settlementKey: KEY, rpcUrls: rpcUrls(), nonces: takenOnce(newNonceQueue()), log: (m) => logs.push(m) });
  const { r, payload } = await payment();
  const settled = await facilitator.settle(payload, r);
  expect(settled).toMatchObject({ success: true, network: TESTNET });
  expect(logs).toEqual([expect.stringContaining('nonce was taken')]);
  const receipt = await chain().getTransactionReceipt({ hash: settled.transaction as Hex });
  expect(receipt.status).toBe('success');
  expect(await used(payload)).toBe(true);
}, 30_000);

it('a settlement whose nonce was taken goes on past it: it never takes the nonce another signer of the key holds and has not sent', async () => {
  const queue = newNonceQueue();
  const chainId = NETWORKS[TESTNET].chainId;
  // The outbox between signing and broadcasting: it holds the next nonce, not yet on the chain.
  const held = await queue.consume({ address: SETTLER, chainId, client: chain() });
  // The settlement's first nonce is one the chain used long ago (another transaction of the key took it).
  let once = true;
  const nonces: NonceQueue = { ...queue, consume: async (p) => (once ? ((once = false), 0) : queue.consume(p)) };
  const logs: string[] = [];
  const facilitator = new LocalFacilitator({ settlementKey: KEY, rpcUrls: rpcUrls(), nonces, log: (m) => logs.push(m) });
  const { r, payload } = await payment();
  const settling = facilitator.settle(payload, r);
  await waitFor('the settlement to find its nonce taken', () => logs.length > 0, { stepMs: 10 });
  // Its second signature reaches the node: queued there behind the held nonce (or, were it to
  // take the held nonce itself, mined at once).
  await waitFor('the second signature at the node', async () => (await heldByTheNode()) > 0 || (await chain().getTransactionCount({ address: SETTLER })) > held);
  // The holder broadcasts its nonce: it is still its own (resetting the queue handed it out again,
  // the settlement took it, and this send was refused as "nonce too low").
  const other = createWalletClient({ account: devnetAccount(0), chain: viemChain(TESTNET, devnet.chains[TESTNET].rpcUrl), transport: http(devnet.chains[TESTNET].rpcUrl) });
  const filler = await other.sendTransaction({ to: SETTLER, value: 0n, nonce: held });
  expect((await chain().waitForTransactionReceipt({ hash: filler })).status).toBe('success');
  const settled = await settling;
  expect(settled).toMatchObject({ success: true, network: TESTNET });
  expect(logs).toEqual([expect.stringContaining('nonce was taken')]);
  expect((await chain().getTransaction({ hash: settled.transaction as Hex })).nonce).toBe(held + 1);
}, 30_000);

it('a settlement behind a nonce of the key that was given out and never sent fills it, and settles — not a minute later, when the outbox would', async () => {
  const queue = newNonceQueue();
  const chainId = NETWORKS[TESTNET].chainId;
  // A signer of the key took a nonce and died before sending (or its send failed and the queue went on past it).
  const hole = await queue.consume({ address: SETTLER, chainId, client: chain() });
  const logs: { message: string; fields: Record<string, unknown> }[] = [];
  const facilitator = new LocalFacilitator({ settlementKey: KEY, rpcUrls: rpcUrls(), nonces: queue, receiptPollMs: 25, holeAfterMs: 200, log: (message, fields) => logs.push({ message, fields }) });
  const { r, payload } = await payment();
  const settled = await facilitator.settle(payload, r);
  expect(settled).toMatchObject({ success: true, network: TESTNET });
  expect((await chain().getTransaction({ hash: settled.transaction as Hex })).nonce).toBe(hole + 1);
  expect(logs).toEqual([{ message: expect.stringContaining('filled it'), fields: { network: TESTNET, nonce: hole } }]);
  // The hole holds a transfer of nothing to the key itself.
  const block = await chain().getBlock({ blockTag: 'latest', includeTransactions: true });
  const filler = (await Promise.all(Array.from({ length: 3 }, (_, i) => chain().getBlock({ blockNumber: block.number - BigInt(i), includeTransactions: true }))))
    .flatMap((b) => b.transactions)
    .find((t) => t.from.toLowerCase() === SETTLER.toLowerCase() && t.nonce === hole);
  expect(filler).toMatchObject({ to: SETTLER.toLowerCase(), value: 0n });
}, 30_000);

it('a settlement replaced in the pool before it is mined (dropped) is signed again, and the facilitator names the one mined', async () => {
  const logs: string[] = [];
  const facilitator = new LocalFacilitator({ settlementKey: KEY, rpcUrls: rpcUrls(), receiptPollMs: 50, log: (m) => logs.push(m) });
  const { r, payload } = await payment();
  await anvil().setAutomine(false);
  try {
    const settling = facilitator.settle(payload, r);
    // The settlement waits in the pool; another transaction of the key takes its nonce, paying more, and is mined.
    const latest = await chain().getTransactionCount({ address: SETTLER, blockTag: 'latest' });
    await waitFor('the settlement in the pool', async () => (await chain().getTransactionCount({ address: SETTLER, blockTag: 'pending' })) !== latest);
    const fees = await chain().estimateFeesPerGas();
    const other = createWalletClient({ account: devnetAccount(0), chain: viemChain(TESTNET, devnet.chains[TESTNET].rpcUrl), transport: http(devnet.chains[TESTNET].rpcUrl) });
    await other.sendTransaction({ to: SETTLER, value: 0n, nonce: latest, maxFeePerGas: fees.maxFeePerGas * 3n, maxPriorityFeePerGas: fees.maxPriorityFeePerGas * 3n + 1n });
    await anvil().mine({ blocks: 1 });
    await anvil().setAutomine(true);
    // Dropped once the nonce's use is a block deep (decision 0056): the next block makes it so.
    await anvil().mine({ blocks: 1 });
    const settled = await settling;
    expect(settled).toMatchObject({ success: true, network: TESTNET });
    expect(logs).toEqual([expect.stringContaining('dropped')]);
    const receipt = await chain().getTransactionReceipt({ hash: settled.transaction as Hex });
    expect(receipt.status).toBe('success');
    expect(await used(payload)).toBe(true);
  } finally {
    await anvil().setAutomine(true);
  }
}, 30_000);

/** A JSON-RPC proxy to the devnet that counts the calls through it by method, and answers `refuse`d methods as a node without them does. */
async function countingRpc(target: string, refuse: string[] = []): Promise<{ url: string; calls: Record<string, number>; codeOf: string[]; close: () => Promise<void> }> {
  const calls: Record<string, number> = {};
  const codeOf: string[] = [];
  const server: Server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks).toString();
    const parsed = JSON.parse(body) as { id: number; method: string; params?: unknown[] } | { id: number; method: string; params?: unknown[] }[];
    for (const { method, params } of Array.isArray(parsed) ? parsed : [parsed]) {
      calls[method] = (calls[method] ?? 0) + 1;
      if (method === 'eth_getCode') codeOf.push(String(params?.[0]).toLowerCase());
    }
    if (!Array.isArray(parsed) && refuse.includes(parsed.method)) {
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id: parsed.id, error: { code: -32601, message: `the method ${parsed.method} does not exist/is not available` } }));
      return;
    }
    const answer = await fetch(target, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    res.writeHead(answer.status, { 'content-type': 'application/json' }).end(await answer.text());
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as { port: number }).port}`,
    calls,
    codeOf,
    close: () => new Promise((r) => server.close(() => r())),
  };
}

it("a payment's verify and settle make six calls to the chain: the payer's code once, no chain id, one fill, one receipt", async () => {
  const rpc = await countingRpc(devnet.chains[TESTNET].rpcUrl);
  try {
    const facilitator = new LocalFacilitator({ settlementKey: KEY, rpcUrls: { [TESTNET]: rpc.url } });
    const { r, payload } = await payment();
    expect(await facilitator.verify(payload, r)).toMatchObject({ isValid: true });
    const settled = await facilitator.settle(payload, r);
    expect(settled).toMatchObject({ success: true, network: TESTNET });
    expect(await used(payload)).toBe(true);
    // Eleven before decision 0054: the exact scheme asked for the payer's code four times (twice
    // in verify, twice in settle's own verify), gas and fees were two fills, the wallet client
    // asked for the chain id to sign, and the receipt was read twice (to see it mined, to return it).
    const { eth_getCode, eth_getTransactionReceipt, eth_getTransactionCount, ...rest } = rpc.calls;
    expect(rest).toEqual({
      eth_call: 1, // verify's simulation of the transfer
      eth_fillTransaction: 1, // the settlement's gas and fees
      eth_sendRawTransaction: 1,
    });
    // The payer's code once (the asset's too when @x402/evm's own 15-minute cache of it is cold).
    expect(rpc.codeOf.filter((a) => a === wallet.address.toLowerCase())).toHaveLength(1);
    expect(eth_getCode).toBeLessThanOrEqual(2);
    // The key's nonce once, then one receipt per look: one when the first look finds it mined.
    // Anvil can answer the send a moment before its block's receipt is there (more likely on a
    // loaded machine): then it is looked at again, and every fourth look also counts the nonces.
    const looks = eth_getTransactionReceipt ?? 0;
    expect(looks).toBeGreaterThanOrEqual(1);
    const asks = Math.floor((looks - 1) / 4); // looks that missed and asked whether it was dropped
    if (asks === 0) expect(eth_getTransactionCount).toBe(1);
    else expect(eth_getTransactionCount).toBeLessThanOrEqual(1 + 2 * asks);
  } finally {
    await rpc.close();
  }
}, 30_000);

it('a node without eth_fillTransaction: the settlement asks for gas and fees apart, and settles', async () => {
  const rpc = await countingRpc(devnet.chains[TESTNET].rpcUrl, ['eth_fillTransaction']);
  try {
    const facilitator = new LocalFacilitator({ settlementKey: KEY, rpcUrls: { [TESTNET]: rpc.url } });
    const { r, payload } = await payment();
    const settled = await facilitator.settle(payload, r);
    expect(settled).toMatchObject({ success: true, network: TESTNET });
    expect(await used(payload)).toBe(true);
    expect(rpc.calls.eth_estimateGas).toBe(1);
    expect(rpc.calls.eth_sendRawTransaction).toBe(1);
  } finally {
    await rpc.close();
  }
}, 30_000);

it('a settlement not mined at its first look is looked at again after 25, 50, 100, 200 ms, then every poll interval', () => {
  expect(Array.from({ length: 7 }, (_, round) => lookDelay(round, 250))).toEqual([25, 50, 100, 200, 250, 250, 250]);
  expect(Array.from({ length: 3 }, (_, round) => lookDelay(round, 25))).toEqual([25, 25, 25]);
});

it('a settlement waiting for its block: each look reads the receipt, and only every fourth also asks whether its nonce was taken', async () => {
  const rpc = await countingRpc(devnet.chains[TESTNET].rpcUrl);
  const facilitator = new LocalFacilitator({ settlementKey: KEY, rpcUrls: { [TESTNET]: rpc.url }, receiptPollMs: 25, holeAfterMs: 60_000 });
  const { r, payload } = await payment();
  await anvil().setAutomine(false);
  try {
    const settling = facilitator.settle(payload, r);
    await pollUntil(() => (rpc.calls.eth_getTransactionReceipt ?? 0) >= 12, { stepMs: 10 });
    await anvil().mine({ blocks: 1 });
    expect(await settling).toMatchObject({ success: true, network: TESTNET });
  } finally {
    await anvil().setAutomine(true);
    await rpc.close();
  }
  const looks = rpc.calls.eth_getTransactionReceipt!;
  expect(looks).toBeGreaterThanOrEqual(12);
  // The key's nonce once, then one count per fourth look (two calls for every look before).
  expect(rpc.calls.eth_getTransactionCount).toBeLessThanOrEqual(1 + Math.ceil(looks / 4));
}, 30_000);
