import type { UnitOfWork } from '../../src/ports/unit-of-work.js';

/** Each persistence contract gets a fresh, empty store per test from one of these. */
export type UowFactory = () => Promise<{ uow: UnitOfWork; cleanup?: () => Promise<void> }>;

export async function withUow<T>(make: UowFactory, fn: (uow: UnitOfWork) => Promise<T>): Promise<T> {
  const { uow, cleanup } = await make();
  try {
    return await fn(uow);
  } finally {
    await uow.close();
    await cleanup?.();
  }
}
