import type { Knex } from 'knex';
import { column, type MigrationContext } from 'idem';

/**
 * `source_marks`: the high-water mark of each incremental HTTP source, one row per pipeline.
 * `mark` is what the last completed run read up to (null: none yet, the next run reads
 * everything), set by `run_key`'s completion at `marked_at`. `pending_mark` is what the run in
 * progress (`pending_run_key`) read up to: it becomes `mark` in the transaction that makes that
 * run `completed`, so a run that never completes never moves the mark. Append-only: never edit
 * this file, add one.
 */
export async function up(knex: Knex, idem: MigrationContext): Promise<void> {
  await knex.schema.createTable('source_marks', (t) => {
    idem.addColumn(t, 'job_name', column.text({ maxLength: 100 }));
    t.primary(['job_name']);
    idem.addColumn(t, 'mark', column.text({ maxLength: 200, nullable: true }));
    idem.addColumn(t, 'run_key', column.text({ maxLength: 200, nullable: true }));
    idem.addColumn(t, 'marked_at', column.instant({ nullable: true }));
    idem.addColumn(t, 'pending_mark', column.text({ maxLength: 200, nullable: true }));
    idem.addColumn(t, 'pending_run_key', column.text({ maxLength: 200, nullable: true }));
    idem.addColumn(t, 'updated_at', column.instant());
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('source_marks');
}
