/**
 * The service as `npm start` runs it, which kills itself and both its chains with kill -9 (its
 * whole process group: the test spawned it detached, tsx's launcher included) at one exact
 * moment of the delivery batches, named by CRASH_AT:
 *
 *   batch-recorded         the first batch is recorded (its deliveries SENT), not yet broadcast
 *   second-batch-recorded  the first batch is mined, the second recorded and not yet broadcast
 *   batch-mined            the first batch is mined, its confirmation not yet recorded
 *   claim-marked           batch-settlement claims are marked under way, nothing sent yet
 *   claim-mined            the claim transaction is mined, neither recorded nor settled to the treasury
 *
 * Started by test/support/service-process.ts's `startServiceProcess(env, …, entry)`.
 */
import { createPublicClient, http, type Hex } from 'viem';
import { loadConfig } from '../../src/bootstrap/config/config.js';
import { startService } from '../../src/bootstrap/compose.js';
import type { DeliveryBatch } from '../../src/domain/delivery-batch.js';
import { TESTNET } from '../../src/domain/network.js';

const at = process.env.CRASH_AT;
const batches: DeliveryBatch[] = [];
let rpcUrl = '';

const crash = (): never => {
  process.kill(0, 'SIGKILL'); // 0: every process of this one's group
  throw new Error('unreachable');
};
const mined = (txHash: string) => createPublicClient({ transport: http(rpcUrl) }).waitForTransactionReceipt({ hash: txHash as Hex, pollingInterval: 50 });

const service = await startService(loadConfig(), {
  hooks: {
    channelClaims: {
      afterMarked: async () => {
        if (at === 'claim-marked') crash();
      },
      afterClaimed: async () => {
        if (at === 'claim-mined') crash();
      },
    },
    deliveryBatches: {
      afterRecord: async (b) => {
        batches.push(b);
        if (at === 'batch-recorded' && batches.length === 1) crash();
        if (at === 'second-batch-recorded' && batches.length === 2) {
          await mined(batches[0]!.txHash);
          crash();
        }
      },
      afterBroadcast: async (b) => {
        if (at === 'batch-mined' && b === batches[0]) {
          await mined(b.txHash);
          crash();
        }
      },
    },
  },
});
rpcUrl = service.devnet!.chains[TESTNET].rpcUrl;
console.log(`crashing service (CRASH_AT=${at}) listening on ${service.url}`);
