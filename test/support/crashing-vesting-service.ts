/**
 * The service as `npm start` runs it, which kills itself and both its chains with kill -9 (its
 * whole process group) at one exact moment of the first release of a vested dev buy, named by
 * CRASH_AT (test/e2e/vesting-crash.test.ts):
 *
 *   release-uncommitted  the release's writes made (vesting moved, delivery queued, event), not committed
 *   release-committed    the release committed, its delivery not yet signed
 *   release-recorded     its delivery signed and recorded, not yet broadcast
 *   release-mined        its delivery broadcast and mined, its confirmation not yet recorded
 *
 * Started by test/support/service-process.ts's `startServiceProcess(env, …, entry)`.
 */
import { createPublicClient, http, type Hex } from 'viem';
import { loadConfig } from '../../src/bootstrap/config/config.js';
import { startService } from '../../src/bootstrap/compose.js';
import type { Delivery } from '../../src/domain/delivery.js';
import { TESTNET } from '../../src/domain/network.js';

const at = process.env.CRASH_AT;
let rpcUrl = '';

const crash = (): never => {
  process.kill(0, 'SIGKILL'); // 0: every process of this one's group
  throw new Error('unreachable');
};
const released = (d: Delivery) => d.sourceId.startsWith('vesting:');

const service = await startService(loadConfig(), {
  hooks: {
    vesting: {
      beforeCommit: async () => {
        if (at === 'release-uncommitted') crash();
      },
      afterRelease: async () => {
        if (at === 'release-committed') crash();
      },
    },
    deliveries: {
      afterRecord: async (d) => {
        if (!released(d)) return;
        if (at === 'release-recorded') crash();
        if (at === 'release-mined') {
          // What the worker would broadcast next, sent here: mined, and never recorded as sent.
          const chain = createPublicClient({ transport: http(rpcUrl) });
          const hash = await chain.request({ method: 'eth_sendRawTransaction', params: [d.rawTx as Hex] });
          await chain.waitForTransactionReceipt({ hash, pollingInterval: 50 });
          crash();
        }
      },
    },
  },
});
rpcUrl = service.devnet!.chains[TESTNET].rpcUrl;
console.log(`crashing service (CRASH_AT=${at}) listening on ${service.url}`);
