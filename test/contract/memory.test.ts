import { MemoryUnitOfWork } from '../../src/adapters/persistence/memory/memory-unit-of-work.js';
import { persistenceContracts } from './persistence.contract.js';

persistenceContracts('memory', async () => ({ uow: new MemoryUnitOfWork() }));
