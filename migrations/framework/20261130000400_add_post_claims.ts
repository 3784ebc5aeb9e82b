import type { Knex } from 'knex';
import { column, type MigrationContext } from 'idem';

/**
 * Post workers (docs/scaling.md): several processes share one run's post stage by claiming
 * ledger rows. `post_ledger.claimed_by` names the last process that claimed a row ("run <uuid>,
 * pid N on HOST" or "worker <uuid>, pid N on HOST"); `claim_expires_at` is when that claim lapses
 * (null: released). `job_runs.stage` is `post` once a run has enqueued everything and posting
 * began, so a worker never completes a run that is still staging. Append-only: never edit this
 * file, add one.
 */
export async function up(knex: Knex, idem: MigrationContext): Promise<void> {
  await knex.schema.alterTable('post_ledger', (t) => {
    // alterTable's builder adds columns exactly as createTable's does.
    const table = t as unknown as Knex.CreateTableBuilder;
    idem.addColumn(table, 'claimed_by', column.text({ maxLength: 300, nullable: true }));
    idem.addColumn(table, 'claim_expires_at', column.instant({ nullable: true }));
  });
  await knex.schema.alterTable('post_ledger', (t) => {
    // Serves the claim: one run's claimable rows at one destination, in id order.
    t.index(['job_name', 'run_key', 'destination', 'status', 'id'], 'post_ledger_claim_idx');
    // Serves a worker's claim renewal.
    t.index(['claimed_by'], 'post_ledger_claimed_by_idx');
  });
  await knex.schema.alterTable('job_runs', (t) => {
    idem.addColumn(t as unknown as Knex.CreateTableBuilder, 'stage', column.text({ maxLength: 20, nullable: true }));
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('job_runs', (t) => {
    t.dropColumn('stage');
  });
  await knex.schema.alterTable('post_ledger', (t) => {
    t.dropIndex([], 'post_ledger_claimed_by_idx');
    t.dropIndex([], 'post_ledger_claim_idx');
  });
  await knex.schema.alterTable('post_ledger', (t) => {
    t.dropColumn('claim_expires_at');
    t.dropColumn('claimed_by');
  });
}
