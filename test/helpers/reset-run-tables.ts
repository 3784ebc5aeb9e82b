import type { Database } from '../../src/db/database.ts';

/** Tables a run of a pipeline writes, besides its own staging and target tables. */
const FRAMEWORK_TABLES = ['post_ledger', 'job_run_attempts', 'job_runs', 'quarantine', 'app_locks'];

/**
 * Empties a migrated test database between test cases (cheaper than a new database per case,
 * most of all on a server): the given pipeline tables and the framework's run tables.
 */
export async function resetRunTables(db: Database, pipelineTables: readonly string[]): Promise<void> {
  for (const table of [...pipelineTables, ...FRAMEWORK_TABLES]) await db.knex(table).delete();
}
