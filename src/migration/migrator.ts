import { hostname } from 'node:os';
import type { Knex } from 'knex';
import type { Database } from '../db/database.ts';
import type { AppLock } from '../dialect/app-lock.ts';
import { LockHeldError } from '../errors/lock-held-error.ts';
import { NotMigratedError } from '../errors/not-migrated-error.ts';
import { ProjectMigrationSource } from './project-migration-source.ts';

/**
 * The project's migrations, each run with its `MigrationContext`, whose module is
 * loaded when a migration runs: every other command only lists the migrations (`assertMigrated`).
 */
function migrationSource(db: Database, projectDir: string): ProjectMigrationSource {
  return new ProjectMigrationSource(projectDir, async (knex) => (await import('./create-migration-context.ts')).createMigrationContext(knex, db.adapter));
}

function migratorConfig(db: Database, projectDir: string): Knex.MigratorConfig {
  return { migrationSource: migrationSource(db, projectDir) };
}

/** The name of the lock `idem migrate` holds while it migrates (`DialectAdapter.tryAcquireMigrationLock`). */
export const MIGRATION_LOCK_NAME = 'idem:migrate';

/** How often a waiting `idem migrate` asks for the migration lock again, in ms. */
const MIGRATION_LOCK_POLL_MS = 250;

/** How {@link migrateLatest} waits for another `idem migrate`, and what it reports. */
export interface MigrateLatestOptions {
  /** How long to wait for another `idem migrate` on the same database, in ms. @defaultValue 60000 */
  readonly lockWaitMs?: number;
  /** Told once when the lock is held elsewhere and this one waits, and when a lock table is repaired. */
  readonly onNotice?: (message: string) => void;
}

/**
 * Applies every pending framework and pipeline migration, holding the migration lock (see
 * `DialectAdapter.tryAcquireMigrationLock`) from before knex touches its own tables until the
 * end: two `idem migrate` started together (two deploys) then run one after the other, and the
 * second finds nothing to do. knex's own lock (`knex_migrations_lock`) cannot serialise them: its
 * table is created and its row inserted by whichever process gets there, so two at once leave
 * two rows, or fail on a table the other has just created. Holding idem's lock, a lock table
 * with other than one unlocked row is repaired (see {@link repairKnexMigrationsLock}).
 * Running it again does nothing.
 * @returns the names applied now.
 * @throws LockHeldError (exit 75) when another `idem migrate` held the lock for all of `lockWaitMs`.
 */
export async function migrateLatest(db: Database, projectDir: string, options: MigrateLatestOptions = {}): Promise<string[]> {
  const lock = await takeMigrationLock(db, options);
  try {
    const repaired = await repairKnexMigrationsLock(db.knex);
    if (repaired) options.onNotice?.(repaired);
    const [, applied] = (await db.knex.migrate.latest(migratorConfig(db, projectDir))) as [number, string[]];
    return applied;
  } finally {
    await lock.release();
  }
}

async function takeMigrationLock(db: Database, options: MigrateLatestOptions): Promise<AppLock> {
  const deadline = Date.now() + (options.lockWaitMs ?? 60_000);
  const request = { name: MIGRATION_LOCK_NAME, owner: `idem migrate pid ${process.pid} on ${hostname()}`, leaseMs: 0 };
  for (let waited = false; ; waited = true) {
    const attempt = await db.adapter.tryAcquireMigrationLock(db.knex, request);
    if (attempt.acquired) return attempt.lock;
    if (Date.now() >= deadline) throw new LockHeldError(MIGRATION_LOCK_NAME, `${attempt.holder}, another idem migrate on this database`);
    if (!waited) options.onNotice?.(`waiting for another idem migrate on this database to finish (the migration lock is held by ${attempt.holder})`);
    await new Promise((resolve) => setTimeout(resolve, MIGRATION_LOCK_POLL_MS));
  }
}

/** knex's migration lock table: one row, `is_locked` 0 or 1. */
const KNEX_LOCK_TABLE = 'knex_migrations_lock';

/**
 * Puts knex's migration lock table back to the one unlocked row knex expects, when it holds
 * more than one row (two migrates created it at once; knex then refuses every later migrate as
 * locked) or one locked row (a migrate killed mid-way). Only called under idem's migration lock,
 * so no other `idem migrate` is using it.
 * @returns what was repaired, for the log; undefined when nothing was.
 */
export async function repairKnexMigrationsLock(knex: Knex): Promise<string | undefined> {
  if (!(await knex.schema.hasTable(KNEX_LOCK_TABLE))) return undefined;
  const rows = await knex(KNEX_LOCK_TABLE).select<{ is_locked: number | boolean }[]>('is_locked');
  if (rows.length === 0 || (rows.length === 1 && !Number(rows[0]!.is_locked))) return undefined;
  await knex.transaction(async (trx) => {
    await trx(KNEX_LOCK_TABLE).del();
    await trx(KNEX_LOCK_TABLE).insert({ is_locked: 0 });
  });
  const why = rows.length > 1 ? `it had ${rows.length} rows (two migrates created it at once)` : 'it was left locked by a migrate that stopped mid-way';
  return `repaired ${KNEX_LOCK_TABLE}: ${why}; it holds one unlocked row again`;
}

/** knex's default migrations table, where it records each applied migration's name. */
const MIGRATIONS_TABLE = 'knex_migrations';

/**
 * The fast check behind {@link assertMigrated}: one `select name` on the migrations table, true
 * when the applied names are exactly the migration files. Anything else (a pending file, an
 * applied name with no file, no table yet, a failed query) is false, and knex's full listing
 * then decides and words the error.
 */
async function allApplied(db: Database, projectDir: string): Promise<boolean> {
  const files = await migrationSource(db, projectDir).getMigrations();
  let applied: Set<string>;
  try {
    applied = new Set((await db.knex(MIGRATIONS_TABLE).select<{ name: string }[]>('name')).map((row) => row.name));
  } catch {
    return false;
  }
  return applied.size === files.length && files.every((name) => applied.has(name));
}

/**
 * The migration files not yet applied to the database (every one, when it has no migrations
 * table). Reads only: unlike knex's own listing, it never creates the migrations table.
 * @returns their names in order; `[]` when every file is applied.
 */
export async function pendingMigrations(db: Database, projectDir: string): Promise<string[]> {
  const files = await migrationSource(db, projectDir).getMigrations();
  if (!(await db.adapter.readTableColumns(db.knex, MIGRATIONS_TABLE))) return files;
  const applied = new Set((await db.knex(MIGRATIONS_TABLE).select<{ name: string }[]>('name')).map((row) => row.name));
  return files.filter((name) => !applied.has(name));
}

/**
 * Refuses to work against a database with pending migrations.
 * @throws NotMigratedError naming the pending migrations and the command to run.
 */
export async function assertMigrated(db: Database, projectDir: string): Promise<void> {
  if (await allApplied(db, projectDir)) return;
  const [, pending] = (await db.knex.migrate.list(migratorConfig(db, projectDir))) as [unknown[], string[]];
  if (pending.length > 0) throw new NotMigratedError(pending);
}
