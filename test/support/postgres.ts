/** The machine's PostgreSQL for tests: DATABASE_URL, or the local default; each test run uses its own schema. */
import { MikroORM } from '@mikro-orm/core';
import { PostgreSqlDriver } from '@mikro-orm/postgresql';
import { POSTGRES_URL } from './service-urls.js';

export { POSTGRES_URL };

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
