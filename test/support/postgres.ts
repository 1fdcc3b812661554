/** The machine's PostgreSQL for tests: DATABASE_URL, or the local default; each test run uses its own schema. */
import { MikroORM } from '@mikro-orm/core';
import { PostgreSqlDriver } from '@mikro-orm/postgresql';

export const POSTGRES_URL = process.env.DATABASE_URL?.startsWith('postgres') ? process.env.DATABASE_URL : 'postgres://postgres@127.0.0.1:5432/test';

export async function dropSchema(schema: string): Promise<void> {
  const orm = await MikroORM.init({
    driver: PostgreSqlDriver,
    clientUrl: POSTGRES_URL,
    entities: [],
    discovery: { warnWhenNoEntities: false },
    pool: { min: 0, max: 1 },
  });
  try {
    await orm.em.getConnection().execute(`drop schema if exists "${schema.replace(/"/g, '')}" cascade`);
  } finally {
    await orm.close(true);
  }
}
