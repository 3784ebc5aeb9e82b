import { readdirSync } from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';
import type { Database } from '../../src/db/database.ts';
import { MIGRATION_LOCK_NAME } from '../../src/migration/migrator.ts';
import { createTestDatabase, describeEachDialect } from '../helpers/dialects.ts';
import { PROJECT_DIR, runCli, startCli } from '../helpers/run-cli.ts';
import { openTestDatabase } from '../helpers/test-db.ts';

// Issue 28 §6: two deploys start `idem migrate` at once. idem takes its migration lock (the app
// lock's mechanism under a migration name; SQLite: a file lock beside the database) before knex
// touches its tables, so one migrates and the other waits, then finds nothing to do; a knex lock
// table left with extra rows is repaired; a lock held past the wait exits 75.

/** Every migration knex should record once: idem's own and the project's. */
const MIGRATIONS = [path.join(PROJECT_DIR, 'migrations', 'framework'), path.join(PROJECT_DIR, 'migrations')]
  .flatMap((dir) => readdirSync(dir).filter((file) => file.endsWith('.ts')).map((file) => file.slice(0, -3)))
  .sort();

/** `is_locked` of each row of knex's lock table: `[0]` is the one unlocked row knex expects. */
async function knexLockRows(db: Database): Promise<number[]> {
  return (await db.knex('knex_migrations_lock').select<{ is_locked: number | boolean }[]>('is_locked')).map((row) => Number(row.is_locked));
}

describeEachDialect('two idem migrate at once', (dialect) => {
  it('races of two migrates on a new database: both exit 0, every migration applied once, one unlocked lock row', { timeout: 120_000 }, async () => {
    for (let round = 1; round <= 3; round++) {
      const testDb = await createTestDatabase(dialect, `migrate race ${round}`);
      try {
        const env = { DATABASE_URL: testDb.url };
        const [a, b] = await Promise.all([startCli(['migrate'], env).done, startCli(['migrate'], env).done]);
        expect([a.code, b.code], `round ${round}\n${a.stderr}\n${b.stderr}`).toEqual([0, 0]);
        const messages = [...a.logs, ...b.logs].map((line) => String(line.msg));
        expect(messages.filter((msg) => msg.startsWith('applied '))).toHaveLength(1);
        expect(messages).toContain('already up to date');
        const db = await openTestDatabase(testDb.url);
        try {
          const names = (await db.knex('knex_migrations').select<{ name: string }[]>('name')).map((row) => row.name.replace(/\.(ts|js)$/, ''));
          expect(names.sort()).toEqual(MIGRATIONS);
          expect(await knexLockRows(db)).toEqual([0]);
        } finally {
          await db.close();
        }
      } finally {
        await testDb.drop();
      }
    }
  });

  it('repairs a knex lock table left with two rows, one locked, and says so', { timeout: 60_000 }, async () => {
    const testDb = await createTestDatabase(dialect, 'migrate repair');
    try {
      const env = { DATABASE_URL: testDb.url };
      expect((await runCli(['migrate'], env)).code).toBe(0);
      const db = await openTestDatabase(testDb.url);
      try {
        await db.knex('knex_migrations_lock').update({ is_locked: 1 });
        await db.knex('knex_migrations_lock').insert({ is_locked: 0 });
        const repaired = await runCli(['migrate'], env);
        expect(repaired.code, repaired.stderr).toBe(0);
        expect(repaired.logs.map((line) => line.msg)).toContain('repaired knex_migrations_lock: it had 2 rows (two migrates created it at once); it holds one unlocked row again');
        expect(await knexLockRows(db)).toEqual([0]);
      } finally {
        await db.close();
      }
    } finally {
      await testDb.drop();
    }
  });

  it('waits for a migration lock held elsewhere, and exits 75 naming it once the wait is over', { timeout: 60_000 }, async () => {
    const testDb = await createTestDatabase(dialect, 'migrate held');
    const db = await openTestDatabase(testDb.url);
    try {
      const attempt = await db.adapter.tryAcquireMigrationLock(db.knex, { name: MIGRATION_LOCK_NAME, owner: 'the test', leaseMs: 0 });
      expect(attempt.acquired).toBe(true);
      if (!attempt.acquired) return;
      const env = { DATABASE_URL: testDb.url, IDEM_MIGRATE_LOCK_WAIT_MS: '600' };
      const held = await runCli(['migrate'], env);
      expect(held.code, held.stderr).toBe(75);
      expect(held.stderr).toContain(`app lock "${MIGRATION_LOCK_NAME}" is held by`);
      expect(held.logs.map((line) => String(line.msg)).some((msg) => msg.startsWith('waiting for another idem migrate on this database to finish'))).toBe(true);
      expect(await db.knex.schema.hasTable('job_runs')).toBe(false);
      await attempt.lock.release();
      const free = await runCli(['migrate'], env);
      expect(free.code, free.stderr).toBe(0);
      expect(await db.knex.schema.hasTable('job_runs')).toBe(true);
    } finally {
      await db.close();
      await testDb.drop();
    }
  });
});
