import type { Knex } from 'knex';
import { column, type MigrationContext } from 'idem';

/**
 * The post ledger: one row per (destination, content version of a record). Unique on
 * (destination, idempotency_key), so one version can never be enqueued twice. Append-only.
 */
export async function up(knex: Knex, idem: MigrationContext): Promise<void> {
  await knex.schema.createTable('post_ledger', (t) => {
    t.bigIncrements('id').primary();
    t.string('job_name', 100).notNullable();
    t.string('destination', 100).notNullable();
    t.string('source_system', 200).notNullable();
    t.string('source_reference', 200).notNullable();
    t.string('row_hash', 64).notNullable();
    t.string('idempotency_key', 200).notNullable();
    t.string('run_key', 200).notNullable();
    t.string('status', 20).notNullable();
    t.string('failure_kind', 20).nullable();
    t.integer('attempts').notNullable().defaultTo(0);
    t.string('remote_reference', 200).nullable();
    t.integer('last_http_status').nullable();
    t.text('last_error').nullable();
    idem.addColumn(t, 'created_at', column.instant());
    idem.addColumn(t, 'updated_at', column.instant());
    idem.addColumn(t, 'posted_at', column.instant({ nullable: true }));
    t.unique(['destination', 'idempotency_key'], { indexName: 'post_ledger_destination_key_uq' });
    t.index(['job_name', 'run_key', 'status'], 'post_ledger_run_status_idx');
    t.index(['destination', 'source_system', 'source_reference'], 'post_ledger_record_idx');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('post_ledger');
}
