import { column, type ColumnSpec } from '../column/column-type.ts';
import { RECORD_DELETION_COLUMNS } from '../pipeline/record-deletions.ts';

/**
 * The columns `createPipelineTables` gives every pipeline's tables besides the business columns
 * (see `MigrationContext.createPipelineTables`). Schema drift compares only the business
 * columns, and reports a framework column only when it is missing.
 */
export const PIPELINE_FRAMEWORK_COLUMNS = {
  staging: ['seq', 'run_key', 'source_system', 'source_reference', 'source_line', 'row_hash'],
  target: ['id', 'source_system', 'source_reference', 'row_hash', 'first_run_key', 'last_changed_run_key', 'created_at', 'updated_at'],
  /** `createDerivedTable`: only the declared columns. */
  derived: [],
  /** `createChildTable`: the parent's business key and the item's position. */
  child: ['source_system', 'source_reference', 'line_no'],
} as const;

/**
 * Framework columns a table may lack: the target's `id` is its own row identity, which idem
 * never reads; a table adopted by `MigrationContext.adoptTable` keeps whatever primary key it had.
 */
export const OPTIONAL_FRAMEWORK_COLUMNS: readonly string[] = ['id'];

/**
 * The specs of a target's `RECORD_DELETION_COLUMNS`, as `createPipelineTables` creates them on
 * every target and `idem migrate --make` adds them to an older target of a pipeline that deletes
 * records. Schema drift accepts them on any target, and asks for them where the pipeline deletes.
 */
export const RECORD_DELETION_SPECS: Readonly<Record<(typeof RECORD_DELETION_COLUMNS)[number], ColumnSpec>> = {
  deleted_at: column.instant({ nullable: true }),
  deleted_in_run_key: column.text({ maxLength: 200, nullable: true }),
};
