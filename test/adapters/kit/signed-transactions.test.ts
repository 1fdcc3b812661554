/**
 * Following a signed transaction must never mistake "I could not tell" for "dropped": a dropped
 * transaction is signed and sent again, so a wrong "dropped" pays twice.
 */
import { createServer, type Server } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { keccak256 } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { SignedTransactions } from '../../../src/adapters/kit/evm/signed-transactions.js';
import { TESTNET } from '../../../src/domain/network.js';

const KEY = '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80';

/** A transfer signed with nonce 3 (the node below says 16 are used). */
async function signedWithNonce3() {
  const account = privateKeyToAccount(KEY);
  const rawTx = await account.signTransaction({ chainId: 84532, nonce: 3, to: account.address, gas: 21_000n, maxFeePerGas: 1n, maxPriorityFeePerGas: 1n });
  return { rawTx, txHash: keccak256(rawTx) };
}
let server: Server | undefined;
afterEach(() => server?.close());

/** A JSON-RPC node that answers from `answer` (a function of the method and its params); `calls` lists what was asked. */
async function node(answer: (method: string, params: unknown[]) => { result?: unknown; error?: { code: number; message: string } }) {
  const calls: string[] = [];
  server = createServer(async (req, res) => {
    let body = '';
    for await (const c of req) body += c;
    const call = JSON.parse(body) as { id: number; method: string; params: unknown[] };
    calls.push(call.method);
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ jsonrpc: '2.0', id: call.id, ...answer(call.method, call.params ?? []) }));
  });
  await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server!.address() as { port: number }).port}`, calls };
}

/** A receipt of `txHash` as a node returns it. */
const receiptOf = (txHash: string) => ({
  transactionHash: txHash, transactionIndex: '0x0', blockHash: `0x${'11'.repeat(32)}`, blockNumber: '0x5', from: privateKeyToAccount(KEY).address,
  to: privateKeyToAccount(KEY).address, cumulativeGasUsed: '0x5208', gasUsed: '0x5208', effectiveGasPrice: '0x1', contractAddress: null, logs: [],
  logsBloom: `0x${'00'.repeat(256)}`, status: '0x1', type: '0x2',
});

/** The transaction as eth_getTransactionByHash returns it, in `blockNumber` (null: in the pool). */
const transactionOf = (txHash: string, blockNumber: string | null) => ({
  hash: txHash, nonce: '0x3', blockHash: blockNumber ? `0x${'11'.repeat(32)}` : null, blockNumber, transactionIndex: blockNumber ? '0x0' : null,
  from: privateKeyToAccount(KEY).address, to: privateKeyToAccount(KEY).address, value: '0x0', gas: '0x5208', maxFeePerGas: '0x1',
  maxPriorityFeePerGas: '0x1', input: '0x', type: '0x2', chainId: '0x14a34', v: '0x0', r: `0x${'22'.repeat(32)}`, s: `0x${'33'.repeat(32)}`, yParity: '0x0', accessList: [],
});

/**
 * The chain as its nodes tell it: the head is block 0x20, the key's count is 0x10 at `latest` and
 * `countBelow` at any block number (where the nonce used stands below the head), no receipt, and
 * `byHash` for the transaction (null: unknown).
 */
function chain(o: { countBelow: string; byHash?: (txHash: string) => unknown; receipt?: (call: number) => unknown }) {
  let receipts = 0;
  return (method: string, params: unknown[]) => {
    if (method === 'eth_getTransactionCount') return { result: params[1] === 'latest' ? '0x10' : o.countBelow };
    if (method === 'eth_blockNumber') return { result: '0x20' };
    if (method === 'eth_getTransactionReceipt') return { result: o.receipt?.(++receipts) ?? null };
    if (method === 'eth_getTransactionByHash') return { result: o.byHash?.(params[0] as string) ?? null };
    return { error: { code: -32601, message: `no ${method}` } };
  };
}

describe('SignedTransactions.status', () => {
  it('a node that fails to answer for the receipt is an error, not "dropped"', async () => {
    const { url } = await node((m) => (m === 'eth_getTransactionCount' ? { result: '0x10' } : { error: { code: -32603, message: 'internal error' } }));
    const txs = new SignedTransactions(KEY, { [TESTNET]: url }, { timeoutMs: 2_000 });
    const signed = await signedWithNonce3();
    await expect(txs.status(TESTNET, signed.txHash, signed.rawTx)).rejects.toThrow();
  });

  it('"dropped": no receipt, its nonce used a block below the head, still no receipt, and in no block the node knows', async () => {
    const { url, calls } = await node(chain({ countBelow: '0x10' }));
    const txs = new SignedTransactions(KEY, { [TESTNET]: url }, { timeoutMs: 2_000 });
    const signed = await signedWithNonce3();
    expect(await txs.status(TESTNET, signed.txHash, signed.rawTx)).toBe('dropped');
    expect(calls).toEqual(['eth_getTransactionReceipt', 'eth_getTransactionCount', 'eth_blockNumber', 'eth_getTransactionCount', 'eth_getTransactionReceipt', 'eth_getTransactionByHash']);
  });

  it('its nonce used only in the newest block (a node that shows the count before that block’s receipts): "pending", never "dropped"', async () => {
    const { url } = await node(chain({ countBelow: '0x3' }));
    const txs = new SignedTransactions(KEY, { [TESTNET]: url }, { timeoutMs: 2_000 });
    const signed = await signedWithNonce3();
    expect(await txs.status(TESTNET, signed.txHash, signed.rawTx)).toBe('pending');
  });

  it('asks the count as deep below the head as it is told', async () => {
    const asked: unknown[] = [];
    const { url } = await node((m, p) => {
      if (m === 'eth_getTransactionCount') asked.push(p[1]);
      return chain({ countBelow: '0x10' })(m, p);
    });
    const txs = new SignedTransactions(KEY, { [TESTNET]: url }, { timeoutMs: 2_000, droppedAfterBlocks: 5 });
    const signed = await signedWithNonce3();
    expect(await txs.status(TESTNET, signed.txHash, signed.rawTx)).toBe('dropped');
    expect(asked).toEqual(['latest', '0x1b']);
  });

  it('a node that knows it in a block but serves no receipt yet: "pending", never "dropped"; in its pool only: "dropped"', async () => {
    const signed = await signedWithNonce3();
    const mined = await node(chain({ countBelow: '0x10', byHash: (h) => transactionOf(h, '0x1e') }));
    expect(await new SignedTransactions(KEY, { [TESTNET]: mined.url }, { timeoutMs: 2_000 }).status(TESTNET, signed.txHash, signed.rawTx)).toBe('pending');
    server!.close();
    const pooled = await node(chain({ countBelow: '0x10', byHash: (h) => transactionOf(h, null) }));
    expect(await new SignedTransactions(KEY, { [TESTNET]: pooled.url }, { timeoutMs: 2_000 }).status(TESTNET, signed.txHash, signed.rawTx)).toBe('dropped');
  });

  it('a node that fails to answer whether it holds the transaction is an error; one that cannot give the count below the head: "pending"', async () => {
    const signed = await signedWithNonce3();
    const failing = (method: string) => (m: string, p: unknown[]) => (m === method && (m !== 'eth_getTransactionCount' || p[1] !== 'latest') ? { error: { code: -32602, message: 'BlockOutOfRangeError' } } : chain({ countBelow: '0x10' })(m, p));
    const byHash = await node(failing('eth_getTransactionByHash'));
    await expect(new SignedTransactions(KEY, { [TESTNET]: byHash.url }, { timeoutMs: 2_000 }).status(TESTNET, signed.txHash, signed.rawTx)).rejects.toThrow();
    server!.close();
    const below = await node(failing('eth_getTransactionCount'));
    expect(await new SignedTransactions(KEY, { [TESTNET]: below.url }, { timeoutMs: 2_000 }).status(TESTNET, signed.txHash, signed.rawTx)).toBe('pending');
  });

  it('mined between the first look for its receipt and the nonce counts: "confirmed", never "dropped"', async () => {
    const signed = await signedWithNonce3();
    const { url, calls } = await node(chain({ countBelow: '0x10', receipt: (n) => (n === 1 ? null : receiptOf(signed.txHash)) }));
    const txs = new SignedTransactions(KEY, { [TESTNET]: url }, { timeoutMs: 2_000 });
    expect(await txs.status(TESTNET, signed.txHash, signed.rawTx)).toBe('confirmed');
    expect(calls).toEqual(['eth_getTransactionReceipt', 'eth_getTransactionCount', 'eth_blockNumber', 'eth_getTransactionCount', 'eth_getTransactionReceipt']);
  });

  it('a pending transaction takes two calls, a mined one one: its receipt', async () => {
    const signed = await signedWithNonce3();
    const waiting = await node((m) => (m === 'eth_getTransactionCount' ? { result: '0x3' } : { result: null }));
    expect(await new SignedTransactions(KEY, { [TESTNET]: waiting.url }, { timeoutMs: 2_000 }).status(TESTNET, signed.txHash, signed.rawTx)).toBe('pending');
    expect(waiting.calls).toEqual(['eth_getTransactionReceipt', 'eth_getTransactionCount']);
    server!.close();
    const { url, calls } = await node(chain({ countBelow: '0x10', receipt: () => receiptOf(signed.txHash) }));
    expect(await new SignedTransactions(KEY, { [TESTNET]: url }, { timeoutMs: 2_000 }).status(TESTNET, signed.txHash, signed.rawTx)).toBe('confirmed');
    expect(calls).toEqual(['eth_getTransactionReceipt']);
  });
});
