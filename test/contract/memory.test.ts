import { MemoryUnitOfWork } from '../../src/adapters/persistence/memory/memory-unit-of-work.js';
import { MemorySignerLocks, MemorySignerLockTable } from '../../src/adapters/persistence/memory/memory-signer-locks.js';
import { changeFeedContract } from './change-feed.contract.js';
import { signerLocksContract } from './signer-locks.contract.js';
import { persistenceContracts } from './persistence.contract.js';

persistenceContracts('memory', async () => ({ uow: new MemoryUnitOfWork() }));
changeFeedContract('memory', async () => ({ uow: new MemoryUnitOfWork() }), { echoes: false });

signerLocksContract('memory (two holders of one table)', async () => {
  const table = new MemorySignerLockTable();
  const a = new MemorySignerLocks(table, 'process a');
  return { a, b: new MemorySignerLocks(table, 'process b'), crashA: async () => a.drop(), askIntent: null, cleanup: async () => undefined };
});
