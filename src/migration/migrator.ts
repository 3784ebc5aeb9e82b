import type { Knex } from 'knex';
import type { Database } from '../db/database.ts';
import { NotMigratedError } from '../errors/not-migrated-error.ts';
import { createMigrationContext } from './create-migration-context.ts';
import { ProjectMigrationSource } from './project-migration-source.ts';

function migratorConfig(db: Database, projectDir: string): Knex.MigratorConfig {
  return { migrationSource: new ProjectMigrationSource(projectDir, (knex) => createMigrationContext(knex, db.adapter)) };
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

/**
 * Refuses to work against a database with pending migrations.
 * @throws NotMigratedError naming the pending migrations and the command to run.
 */
export async function assertMigrated(db: Database, projectDir: string): Promise<void> {
  const [, pending] = (await db.knex.migrate.list(migratorConfig(db, projectDir))) as [unknown[], string[]];
  if (pending.length > 0) throw new NotMigratedError(pending);
}
