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

/** A JSON-RPC node that answers from `answers` (a function of the method). */
async function node(answer: (method: string) => { result?: unknown; error?: { code: number; message: string } }) {
  server = createServer(async (req, res) => {
    let body = '';
    for await (const c of req) body += c;
    const call = JSON.parse(body) as { id: number; method: string };
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ jsonrpc: '2.0', id: call.id, ...answer(call.method) }));
  });
  await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
  return `http://127.0.0.1:${(server!.address() as { port: number }).port}`;
}

describe('SignedTransactions.status', () => {
  it('a node that fails to answer for the receipt is an error, not "dropped"', async () => {
    const url = await node((m) => (m === 'eth_getTransactionCount' ? { result: '0x10' } : { error: { code: -32603, message: 'internal error' } }));
    const txs = new SignedTransactions(KEY, { [TESTNET]: url }, { timeoutMs: 2_000 });
    const signed = await signedWithNonce3();
    await expect(txs.status(TESTNET, signed.txHash, signed.rawTx)).rejects.toThrow();
  });

  it('no receipt and the nonce taken by another transaction is "dropped"', async () => {
    const url = await node((m) => (m === 'eth_getTransactionCount' ? { result: '0x10' } : { result: null }));
    const txs = new SignedTransactions(KEY, { [TESTNET]: url }, { timeoutMs: 2_000 });
    const signed = await signedWithNonce3();
    expect(await txs.status(TESTNET, signed.txHash, signed.rawTx)).toBe('dropped');
  });

  /** A receipt of `signed` as a node returns it. */
  const receiptOf = (txHash: string) => ({
    transactionHash: txHash, transactionIndex: '0x0', blockHash: `0x${'11'.repeat(32)}`, blockNumber: '0x5', from: privateKeyToAccount(KEY).address,
    to: privateKeyToAccount(KEY).address, cumulativeGasUsed: '0x5208', gasUsed: '0x5208', effectiveGasPrice: '0x1', contractAddress: null, logs: [],
    logsBloom: `0x${'00'.repeat(256)}`, status: '0x1', type: '0x2',
  });

  it('mined between the first look for its receipt and the nonce count: "confirmed", never "dropped"', async () => {
    const signed = await signedWithNonce3();
    const calls: string[] = [];
    const url = await node((m) => {
      calls.push(m);
      if (m === 'eth_getTransactionCount') return { result: '0x10' };
      return { result: calls.filter((c) => c === 'eth_getTransactionReceipt').length === 1 ? null : receiptOf(signed.txHash) };
    });
    const txs = new SignedTransactions(KEY, { [TESTNET]: url }, { timeoutMs: 2_000 });
    expect(await txs.status(TESTNET, signed.txHash, signed.rawTx)).toBe('confirmed');
    expect(calls).toEqual(['eth_getTransactionReceipt', 'eth_getTransactionCount', 'eth_getTransactionReceipt']);
  });

  it('a mined transaction takes one call: its receipt', async () => {
    const signed = await signedWithNonce3();
    const calls: string[] = [];
    const url = await node((m) => {
      calls.push(m);
      return m === 'eth_getTransactionCount' ? { result: '0x10' } : { result: receiptOf(signed.txHash) };
    });
    const txs = new SignedTransactions(KEY, { [TESTNET]: url }, { timeoutMs: 2_000 });
    expect(await txs.status(TESTNET, signed.txHash, signed.rawTx)).toBe('confirmed');
    expect(calls).toEqual(['eth_getTransactionReceipt']);
  });
});
