import { MemoryUnitOfWork } from '../../src/adapters/persistence/memory/memory-unit-of-work.js';
import { changeFeedContract } from './change-feed.contract.js';
import { persistenceContracts } from './persistence.contract.js';

persistenceContracts('memory', async () => ({ uow: new MemoryUnitOfWork() }));
changeFeedContract('memory', async () => ({ uow: new MemoryUnitOfWork() }));
