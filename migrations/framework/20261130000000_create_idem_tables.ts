import type { Knex } from 'knex';
import { column, type MigrationContext } from 'idem';

/**
 * idem's own tables: `job_runs` (one row per job and run key), `app_locks` (SQLite's lease
 * rows) and `quarantine` (rows rejected by extract). Append-only: never edit this file, add one.
 */
export async function up(knex: Knex, idem: MigrationContext): Promise<void> {
  await knex.schema.createTable('job_runs', (t) => {
    t.bigIncrements('id').primary();
    idem.addColumn(t, 'job_name', column.text({ maxLength: 100 }));
    idem.addColumn(t, 'run_key', column.text({ maxLength: 200 }));
    idem.addColumn(t, 'status', column.text({ maxLength: 20 }));
    t.integer('attempts').notNullable().defaultTo(0);
    idem.addColumn(t, 'triggered_by', column.text({ maxLength: 200 }));
    idem.addColumn(t, 'started_at', column.instant());
    idem.addColumn(t, 'finished_at', column.instant({ nullable: true }));
    idem.addColumn(t, 'heartbeat_at', column.instant({ nullable: true }));
    t.text('counts').nullable();
    t.text('error').nullable();
    idem.addColumn(t, 'created_at', column.instant());
    idem.addColumn(t, 'updated_at', column.instant());
    t.unique(['job_name', 'run_key'], { indexName: 'job_runs_job_run_key_uq' });
  });
  await knex.schema.createTable('app_locks', (t) => {
    idem.addColumn(t, 'name', column.text({ maxLength: 200 }));
    t.primary(['name']);
    idem.addColumn(t, 'owner', column.text({ maxLength: 300 }));
    idem.addColumn(t, 'token', column.text({ maxLength: 64 }));
    t.bigInteger('acquired_at').notNullable();
    t.bigInteger('expires_at').notNullable();
  });
  await knex.schema.createTable('quarantine', (t) => {
    t.bigIncrements('id').primary();
    idem.addColumn(t, 'job_name', column.text({ maxLength: 100 }));
    idem.addColumn(t, 'run_key', column.text({ maxLength: 200 }));
    t.text('source').notNullable();
    t.integer('line').nullable();
    t.text('reason').notNullable();
    t.text('raw').nullable();
    idem.addColumn(t, 'created_at', column.instant());
    t.index(['job_name', 'run_key'], 'quarantine_job_run_key_idx');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('quarantine');
  await knex.schema.dropTableIfExists('app_locks');
  await knex.schema.dropTableIfExists('job_runs');
}
