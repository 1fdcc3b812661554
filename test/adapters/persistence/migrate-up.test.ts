/**
 * Migrations at open (orm-options.ts `migrateUp`): MikroORM's migrator lists every table of the
 * database before it runs anything, so a schema another client drops meanwhile fails that listing;
 * the run is tried again. Anything else fails the open as it did.
 */
import type { MikroORM } from '@mikro-orm/core';
import { describe, expect, it } from 'vitest';
import { catalogChangedUnderListing, migrateUp } from '../../../src/adapters/persistence/mikro-orm/orm-options.js';

/** The failure a CI run met when another test file dropped its schema during this listing (abridged). */
const VANISHED = new Error(
  `select table_name, table_schema as schema_name, (select pg_catalog.obj_description(c.oid) from pg_catalog.pg_class c where c.oid = (select ('"' || table_schema || '"."' || table_name || '"')::regclass::oid) and c.relname = table_name) as table_comment from information_schema.tables where "table_schema" not like 'pg_%' order by table_name - schema "t_bc8c2bb758e4" does not exist`,
);

/** An ORM whose migrator fails with `errors` in turn, then runs `ran` migrations. */
function ormFailing(errors: Error[], ran = 2) {
  let calls = 0;
  const orm = {
    migrator: {
      up: async () => {
        const e = errors[calls++];
        if (e) throw e;
        return Array.from({ length: ran }, (_, i) => ({ name: `m${i}` }));
      },
    },
  } as unknown as MikroORM;
  return { orm, calls: () => calls };
}

describe('migrations at open', () => {
  it('tries again when a table or schema vanished under the listing of all tables', async () => {
    const { orm, calls } = ormFailing([VANISHED, VANISHED]);
    expect(await migrateUp(orm, 1)).toBe(2);
    expect(calls()).toBe(3);
  });

  it('gives up after five such failures, with the last one', async () => {
    const { orm, calls } = ormFailing(Array.from({ length: 6 }, () => VANISHED));
    await expect(migrateUp(orm, 1)).rejects.toBe(VANISHED);
    expect(calls()).toBe(5);
  });

  it('fails at once on anything else: a migration that does not apply is not run again', async () => {
    const broken = new Error('alter table "tokens" add column "x" int - column "x" of relation "tokens" already exists');
    const { orm, calls } = ormFailing([broken]);
    await expect(migrateUp(orm, 1)).rejects.toBe(broken);
    expect(calls()).toBe(1);
    expect(catalogChangedUnderListing(new Error('relation "tokens" does not exist'))).toBe(false);
  });
});
