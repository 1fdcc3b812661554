/**
 * The start-up half of the devnet's journal (docs/decisions/0011-devnet-transaction-journal.md):
 * after anvil has loaded its saved state, every journaled transaction the chain does not know is
 * sent again, so a kill -9 of the service and both chains loses no acknowledged transaction.
 */
import { createPublicClient, createTestClient, http, keccak256 } from 'viem';
import type { ChainProcess } from './anvil-process.js';

/**
 * Sends again every journaled transaction the restored chain does not know, in order, each in
 * a block stamped with the time it was first received; then brings the chain's clock back to
 * now. Transactions the state already holds, or that fail (a nonce since taken), are skipped.
 * Returns how many were replayed.
 */
export async function replayJournal(
  p: Pick<ChainProcess, 'network' | 'journal' | 'proxy' | 'upstreamUrl'>,
  restored: { number: bigint; timestamp: bigint },
  log: (line: string) => void,
): Promise<number> {
  if (!p.journal) return 0;
  const client = createPublicClient({ transport: http(p.upstreamUrl) });
  const test = createTestClient({ mode: 'anvil', transport: http(p.upstreamUrl) });
  // Which entries the saved state may lack: from well before its head (a transaction waits in
  // the journal's queue and the node before it is mined); each is checked by hash anyway. No
  // saved state (block 0): all of them.
  const since = restored.number === 0n ? 0 : (Number(restored.timestamp) - 600) * 1000;
  let last = restored.number === 0n ? 0n : restored.timestamp;
  let rewound = false;
  let replayed = 0;
  for (const entry of p.journal.read().filter((e) => e.t >= since)) {
    const hash = keccak256(entry.raw);
    if (await client.getTransaction({ hash }).catch(() => null)) continue;
    const at = BigInt(Math.floor(entry.t / 1000));
    if (at > last) last = at;
    try {
      // A restarted anvil refuses blocks older than its start; evm_setTime lets the clock go
      // back to when the transaction was first received, inside its authorization window.
      if (!rewound) {
        await test.request({ method: 'evm_setTime' as never, params: [Number(last)] as never });
        rewound = true;
      }
      await test.setNextBlockTimestamp({ timestamp: last });
      await client.sendRawTransaction({ serializedTransaction: entry.raw });
      replayed += 1;
    } catch (e) {
      const detail = (e as { details?: string }).details ?? (e as Error).message.split('\n')[0];
      log(`devnet ${p.network}: journaled transaction ${hash} not replayed: ${detail}`);
    }
  }
  if (rewound) await test.request({ method: 'evm_setTime' as never, params: [Math.floor(Date.now() / 1000)] as never });
  if (replayed > 0) log(`devnet ${p.network}: replayed ${replayed} journaled transaction(s) the saved state had lost`);
  if (since > 0) await p.proxy.compact(since - 3_600_000);
  return replayed;
}
