import type { Knex } from 'knex';
import type { ColumnSpecs } from '../column/column-type.ts';

/**
 * The scope a derived table is rebuilt for, as its `query` receives it. For a run whose run key
 * is a business date, the one date; for a run of a file (`--file`), each business date the
 * file's records fall on (see {@link DerivedTableDefinition.scopeFrom}).
 */
export interface DerivedScope {
  /** The scope column's value: the business date, `YYYY-MM-DD`. */
  readonly value: string;
  /**
   * The instant that date starts in the pipeline's time zone, as the database binds an instant
   * column (text or a `Date`, by dialect): compare with `>=`.
   */
  readonly start: string | Date;
  /**
   * The instant the next date starts (`<`): `[start, end)` is the date's 23, 24 or 25 hours, so no
   * row falls between two dates nor on both.
   */
  readonly end: string | Date;
}

/**
 * A table idem rebuilds from the pipeline's target table for each run's scope, in the upsert's
 * transaction: `DELETE FROM <table> WHERE <scope> = ?`, then `INSERT INTO <table> (<scope>, …)
 * SELECT ?, q.… FROM (<query>) AS q` (the "deterministic recomputation for the run key" of
 * /work/shared/DESIGN.md, as dbt's `delete+insert` incremental strategy does it). The table holds
 * no row the query did not give for that scope, and no other scope is touched.
 *
 * @example
 * { table: 'online_retail_daily_totals', columns: { business_date: column.date(), country: column.text(), total: column.decimal(16, 3) },
 *   scopeFrom: 'invoiced_at',
 *   query: (invoices, { start, end }) => invoices.where('invoiced_at', '>=', start).andWhere('invoiced_at', '<', end)
 *     .groupBy('country').select('country').sum({ total: 'total' }) }
 */
export interface DerivedTableDefinition {
  /** The derived table (snake_case), made by `idem migrate --make` (`createDerivedTable`). */
  readonly table: string;
  /** The column that holds the scope (the business date), one of `columns`: `column.date()`, or text of at most 200 characters. @defaultValue 'business_date' */
  readonly scope: string;
  /** Every column of the table, the scope column included, declared as a pipeline's `columns` are. */
  readonly columns: ColumnSpecs;
  /**
   * The rows of one scope: given a query builder over the pipeline's target table
   * (`knex(target)`), the scope, and knex's `raw` for expressions, returns a query whose columns
   * are named as the table's other columns (the scope column is idem's to fill). It must filter on
   * the scope with bound parameters (`scope.value`, or both `scope.start` and `scope.end`):
   * `definePipeline` builds it once with a probe scope and refuses one whose filters (its SQL
   * without the select list) bind neither.
   */
  readonly query: (target: Knex.QueryBuilder, scope: DerivedScope, raw: Knex.RawBuilder) => Knex.QueryBuilder;
  /**
   * A `date` or `instant` column of the pipeline whose business date (in the pipeline's time zone)
   * is a record's scope. A run of a file has no date of its own: it rebuilds the scopes of the
   * records it read. Without it, a `--file` run of the pipeline is refused (exit 2).
   * @defaultValue none
   */
  readonly scopeFrom?: string;
}
