import type { Knex } from 'knex';
import { column, type MigrationContext } from 'idem';

/**
 * The identity of the file a business-date run read (`source_bytes`, `source_sha256`: its size
 * and the SHA-256 of its bytes, as a `--file` run key computes it), so that a plain rerun of a
 * completed date whose file has changed since is told apart from a no-op. Null for a run that
 * reads no file, and for runs from before. Append-only: never edit this file, add one.
 */
export async function up(knex: Knex, idem: MigrationContext): Promise<void> {
  await knex.schema.alterTable('job_runs', (t) => {
    idem.addColumn(t, 'source_bytes', column.integer({ nullable: true }));
    idem.addColumn(t, 'source_sha256', column.text({ maxLength: 64, nullable: true }));
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('job_runs', (t) => t.dropColumns('source_bytes', 'source_sha256'));
}
