/**
 * The devnet's journaling RPC proxy, on its own thread (journaled-rpc.ts,
 * startJournaledRpcThread): it listens, journals and forwards here, and answers its owner's
 * compact and close requests between appends.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { RpcPortInUse, startJournaledRpc, TransactionJournal, type FromRpcThread, type JournaledRpcThreadOptions, type ToRpcThread } from './journaled-rpc.js';

const options = workerData as JournaledRpcThreadOptions;
const port = parentPort!;
const say = (m: FromRpcThread) => port.postMessage(m);
const journal = options.journalPath ? new TransactionJournal(options.journalPath) : null;

try {
  const server = await startJournaledRpc({ host: options.host, port: options.port, upstreamPort: options.upstreamPort, journal });
  port.on('message', (m: ToRpcThread) => {
    const done = (error?: unknown) => say({ kind: 'done', id: m.id, ...(error === undefined ? {} : { error: error instanceof Error ? error.message : String(error) }) });
    if (m.kind === 'compact') {
      (journal ? journal.compact(m.sinceMs) : Promise.resolve()).then(() => done(), done);
    } else {
      server.closeAllConnections();
      server.close(() => void (journal ? journal.close() : Promise.resolve()).then(() => done(), done));
    }
  });
  say({ kind: 'listening' });
} catch (e) {
  say({ kind: 'failed', portInUse: e instanceof RpcPortInUse, message: e instanceof Error ? e.message : String(e) });
}
