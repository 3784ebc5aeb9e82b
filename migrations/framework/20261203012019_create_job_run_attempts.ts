import type { Knex } from 'knex';
import { column, type MigrationContext } from 'idem';

/**
 * `job_run_attempts`: one row per attempt of a run key, kept after the next attempt reuses the
 * `job_runs` row (which holds the latest attempt only), and one row per run of a completed run
 * key that found nothing to do (`status` `noop`, `attempt` null). Written in the statements and
 * transactions that start and end an attempt in `job_runs` (src/runs/job-runs-queries.ts).
 * `job_run_id` is the `job_runs` row's id; `status` is what `job_runs` said of the attempt when it
 * ended (`completed`, `needs_review`, `failed`, …), or `noop`, `lock_lost` (it lost its app lock
 * and wrote nothing more), `dead` (it never recorded its end: the next attempt found it still
 * `started`). Who started it: `triggered_by` (as `job_runs`: `--triggered-by`, else
 * `IDEM_TRIGGERED_BY`, else the OS user), `os_user`, `host`, `pid`, `command` (the command line,
 * secrets redacted). `ended_by` names another process that wrote the end (an `idem work` worker,
 * `idem review`, the attempt that found this one dead); null: the attempt's own process.
 * `exit_code` is the exit code the attempt's process ended with (null: it died). Append-only:
 * never edit this file, add one.
 */
export async function up(knex: Knex, idem: MigrationContext): Promise<void> {
  await knex.schema.createTable('job_run_attempts', (t) => {
    t.bigIncrements('id').primary();
    t.bigInteger('job_run_id').notNullable();
    idem.addColumn(t, 'job_name', column.text({ maxLength: 100 }));
    idem.addColumn(t, 'run_key', column.text({ maxLength: 200 }));
    t.integer('attempt').nullable();
    idem.addColumn(t, 'status', column.text({ maxLength: 20 }));
    idem.addColumn(t, 'triggered_by', column.text({ maxLength: 200 }));
    idem.addColumn(t, 'os_user', column.text({ maxLength: 100, nullable: true }));
    idem.addColumn(t, 'host', column.text({ maxLength: 255, nullable: true }));
    t.integer('pid').nullable();
    t.text('command').nullable();
    idem.addColumn(t, 'started_at', column.instant());
    idem.addColumn(t, 'ended_at', column.instant({ nullable: true }));
    idem.addColumn(t, 'ended_by', column.text({ maxLength: 300, nullable: true }));
    t.integer('exit_code').nullable();
    t.text('error').nullable();
    t.text('counts').nullable();
    // Serves every write of an attempt (its run's id and number) and the run page's list.
    t.index(['job_run_id', 'attempt'], 'job_run_attempts_run_attempt_idx');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('job_run_attempts');
}
