import type { Knex } from 'knex';
import type { ColumnSpec, ColumnSpecs } from '../column/column-type.ts';

/** Table names and business columns for {@link MigrationContext.createPipelineTables}. */
export interface PipelineTablesSpec {
  readonly staging: string;
  readonly target: string;
  readonly columns: ColumnSpecs;
}

/** A derived table for {@link MigrationContext.createDerivedTable}: its columns, the scope column among them. */
export interface DerivedTableSpec {
  readonly table: string;
  /** The scope column, one of `columns`. @defaultValue 'business_date' */
  readonly scope?: string;
  readonly columns: ColumnSpecs;
}

/** A child table for {@link MigrationContext.createChildTable}: its business columns. */
export interface ChildTableSpec {
  readonly table: string;
  readonly columns: ColumnSpecs;
}

/**
 * Column changes on one existing table for {@link MigrationContext.alterColumns}, each applied
 * with the type that holds the spec's canonical value exactly on the dialect.
 */
export interface ColumnChanges {
  /**
   * Columns to add. A NOT NULL one takes three steps, on every dialect: added nullable, filled
   * with its `fill` value where the rows have none, then made NOT NULL.
   */
  readonly add?: ColumnSpecs;
  /**
   * The value each row already in the table gets in a NOT NULL column of `add` (a canonical
   * value of its type, as `toRecords` gives it: `'0.00'` for a decimal with scale 2). One left
   * out or `undefined` is refused before anything changes when the table has rows (an empty
   * table needs none). Naming a column `add` does not add as NOT NULL is an error.
   * @defaultValue none
   */
  readonly fill?: Readonly<Record<string, unknown>>;
  /** Columns whose type or nullability changes to the spec (converting the values the database's way). */
  readonly alter?: ColumnSpecs;
  /** Columns to drop, with their values. */
  readonly drop?: readonly string[];
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
  /**
   * Adds, alters and drops business columns of one existing table, through knex's schema
   * builder and the dialect adapter's types (`ALTER TABLE`; on SQLite knex copies the table into
   * a new one). What `idem migrate --make` writes for a changed pipeline.
   */
  alterColumns(table: string, changes: ColumnChanges): Promise<void>;
  /**
   * Creates a derived table: the declared columns (the scope column among them) and an index on
   * the scope column, which every rebuild deletes by.
   */
  createDerivedTable(spec: DerivedTableSpec): Promise<void>;
  /**
   * Creates a child table: `source_system`, `source_reference` (the parent's business key) and
   * `line_no` (the item's position in the list, from 1) as its primary key, then the business
   * columns.
   */
  createChildTable(spec: ChildTableSpec): Promise<void>;
  /** Drops tables that exist, in the order given (for `down`). */
  dropTables(tables: readonly string[]): Promise<void>;
  /** Drops both tables (for `down`). */
  dropPipelineTables(spec: Pick<PipelineTablesSpec, 'staging' | 'target'>): Promise<void>;
}
