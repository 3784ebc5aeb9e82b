import type { Knex } from 'knex';
import type { ColumnSpec, ColumnSpecs } from '../column/column-type.ts';

/** Table names and business columns for {@link MigrationContext.createPipelineTables}. */
export interface PipelineTablesSpec {
  readonly staging: string;
  readonly target: string;
  readonly columns: ColumnSpecs;
}

/**
 * The second argument idem passes to every migration's `up(knex, idem)` / `down(knex, idem)`:
 * dialect-aware helpers, so a migration never asks which database it runs on.
 */
export interface MigrationContext {
  /** Adds a business column with the type that holds its canonical value exactly on this dialect. */
  addColumn(table: Knex.CreateTableBuilder, name: string, spec: ColumnSpec): void;
  /**
   * Creates a pipeline's staging table (framework columns `seq`, `run_key`, `source_system`,
   * `source_reference`, `source_line`, `row_hash`, then the business columns) and its target
   * table (`id`, the key under a unique constraint, the business columns, `row_hash`,
   * `first_run_key`, `last_changed_run_key`, `created_at`, `updated_at`).
   */
  createPipelineTables(spec: PipelineTablesSpec): Promise<void>;
  /** Drops both tables (for `down`). */
  dropPipelineTables(spec: Pick<PipelineTablesSpec, 'staging' | 'target'>): Promise<void>;
}
