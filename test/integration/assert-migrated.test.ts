import { readdirSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import type { Database } from '../../src/db/database.ts';
import { NotMigratedError } from '../../src/errors/not-migrated-error.ts';
import { assertMigrated } from '../../src/migration/migrator.ts';
import { createTestDatabase, describeEachDialect, type TestDatabase } from '../helpers/dialects.ts';
import { PROJECT_DIR } from '../helpers/run-cli.ts';
import { openMigratedDatabase, openTestDatabase } from '../helpers/test-db.ts';

// idem's own migrations (migrations/framework/) and the project's, in one order by name.
const MIGRATIONS = ['migrations/framework', 'migrations']
  .flatMap((dir) => readdirSync(path.join(PROJECT_DIR, dir)))
  .filter((file) => file.endsWith('.ts'))
  .map((file) => file.slice(0, -'.ts'.length))
  .sort();

describeEachDialect('assertMigrated', (dialect) => {
  let testDb: TestDatabase;
  let db: Database;

  beforeEach(async (context) => {
    testDb = await createTestDatabase(dialect, context.task.name);
  });

  afterEach(async () => {
    await db.close();
    await testDb.drop();
  });

  it('passes a database with every migration applied', async () => {
    db = await openMigratedDatabase(testDb.url);
    await expect(assertMigrated(db, PROJECT_DIR)).resolves.toBeUndefined();
  });

  it('refuses an empty database, naming every migration as pending', async () => {
    db = await openTestDatabase(testDb.url);
    const error = await assertMigrated(db, PROJECT_DIR).then(() => undefined, (e: unknown) => e);
    expect(error).toBeInstanceOf(NotMigratedError);
    expect((error as Error).message).toContain(`the database is not migrated (${MIGRATIONS.length} pending: ${MIGRATIONS[0]}`);
  });

  it('refuses a partly migrated database, naming the one migration not applied', async () => {
    db = await openMigratedDatabase(testDb.url);
    const last = MIGRATIONS.at(-1)!;
    expect(await db.knex('knex_migrations').where({ name: last }).del()).toBe(1);
    const error = await assertMigrated(db, PROJECT_DIR).then(() => undefined, (e: unknown) => e);
    expect(error).toBeInstanceOf(NotMigratedError);
    expect((error as Error).message).toContain(`(1 pending: ${last})`);
  });

  it('refuses an applied migration whose file is gone (knex: the migration directory is corrupt)', async () => {
    db = await openMigratedDatabase(testDb.url);
    await db.knex('knex_migrations').insert({ name: '29990101000000_gone', batch: 1, migration_time: new Date() });
    await expect(assertMigrated(db, PROJECT_DIR)).rejects.toThrow(/migration directory is corrupt.*29990101000000_gone/);
  });
});
