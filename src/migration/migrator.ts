import type { Knex } from 'knex';
import type { Database } from '../db/database.ts';
import { NotMigratedError } from '../errors/not-migrated-error.ts';
import { createMigrationContext } from './create-migration-context.ts';
import { ProjectMigrationSource } from './project-migration-source.ts';

function migrationSource(db: Database, projectDir: string): ProjectMigrationSource {
  return new ProjectMigrationSource(projectDir, (knex) => createMigrationContext(knex, db.adapter));
}

function migratorConfig(db: Database, projectDir: string): Knex.MigratorConfig {
  return { migrationSource: migrationSource(db, projectDir) };
}

/**
 * Applies every pending framework and pipeline migration (knex's migration lock keeps two
 * concurrent `idem migrate` from both applying one). Running it again does nothing.
 * @returns the names applied now.
 */
export async function migrateLatest(db: Database, projectDir: string): Promise<string[]> {
  const [, applied] = (await db.knex.migrate.latest(migratorConfig(db, projectDir))) as [number, string[]];
  return applied;
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
