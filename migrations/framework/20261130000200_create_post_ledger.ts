import type { Knex } from 'knex';
import { column, type MigrationContext } from 'idem';

/**
 * The post ledger: one row per (destination, content version of a record). Unique on
 * (destination, idempotency_key), so one version can never be enqueued twice. Append-only.
 */
export async function up(knex: Knex, idem: MigrationContext): Promise<void> {
  await knex.schema.createTable('post_ledger', (t) => {
    t.bigIncrements('id').primary();
    idem.addColumn(t, 'job_name', column.text({ maxLength: 100 }));
    idem.addColumn(t, 'destination', column.text({ maxLength: 100 }));
    idem.addColumn(t, 'source_system', column.text({ maxLength: 200 }));
    idem.addColumn(t, 'source_reference', column.text({ maxLength: 200 }));
    idem.addColumn(t, 'row_hash', column.text({ maxLength: 64 }));
    idem.addColumn(t, 'idempotency_key', column.text({ maxLength: 200 }));
    idem.addColumn(t, 'run_key', column.text({ maxLength: 200 }));
    idem.addColumn(t, 'status', column.text({ maxLength: 20 }));
    idem.addColumn(t, 'failure_kind', column.text({ maxLength: 20, nullable: true }));
    t.integer('attempts').notNullable().defaultTo(0);
    idem.addColumn(t, 'remote_reference', column.text({ maxLength: 200, nullable: true }));
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
