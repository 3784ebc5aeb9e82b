import type { Knex } from 'knex';
import { column, type MigrationContext } from 'idem';

/**
 * Fencing (docs/scaling.md, "A process's right to send"): `post_ledger.claim_token` is the token
 * of the claim that took a row last, new at every claim; a process writes an outcome, or marks a
 * row `sending`, only while the row still carries the token of its own claim, so a process whose
 * claim was taken over writes nothing. `job_runs.died_attempts` counts the attempts of a run key
 * that ended without recording their end (killed, their host lost, or their lock lost), as the
 * next attempt found them. Append-only: never edit this file, add one.
 */
export async function up(knex: Knex, idem: MigrationContext): Promise<void> {
  await knex.schema.alterTable('post_ledger', (t) => {
    // alterTable's builder adds columns exactly as createTable's does.
    idem.addColumn(t as unknown as Knex.CreateTableBuilder, 'claim_token', column.text({ maxLength: 36, nullable: true }));
  });
  await knex.schema.alterTable('job_runs', (t) => {
    t.integer('died_attempts').notNullable().defaultTo(0);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('job_runs', (t) => {
    t.dropColumn('died_attempts');
  });
  await knex.schema.alterTable('post_ledger', (t) => {
    t.dropColumn('claim_token');
  });
}
