import type { Knex } from 'knex';
import type { ZodType } from 'zod';
import type { SourceDeclaration } from '../source-kind.ts';
import type { SqlRunRange } from './sql-run-range.ts';

/**
 * The query of a {@link SqlSource}: given a knex instance of the source database and the run's
 * {@link SqlRunRange}, it returns a knex select `QueryBuilder` (not a string, not `knex.raw`), so
 * every value reaches the database as a bound parameter and the date is never written into SQL
 * text. It only builds the query: idem runs it, in its snapshot transaction.
 *
 * @example
 * ```ts
 * (db, { start, end }) => db('orders').select('order_id', 'shipped_at', 'total').where('shipped_at', '>=', start).andWhere('shipped_at', '<', end).orderBy('order_id')
 * ```
 */
export type SqlSourceQuery = (db: Knex, range: SqlRunRange) => Knex.QueryBuilder;

/**
 * A query on another database (the application's own, say), read for a business date.
 *
 * - Where: the database URL is deployment configuration, never code: the `IDEM_SOURCES` entry
 *   named by `database`, for example `IDEM_SOURCES='{"shop":{"url":"postgres://reader:pw@db/shop"}}'`,
 *   on any of idem's four dialects. Its password is redacted everywhere idem prints or stores text.
 * - What: `query` gets the run's business date as the half-open range of instants `[start, end)`
 *   in the pipeline's time zone (23 or 25 hours on a day the clocks change), and returns a knex
 *   select builder, checked when the pipeline module is imported: a string or `knex.raw` is
 *   refused with exit 2.
 * - How: in one read-only transaction that sees one snapshot (PostgreSQL `REPEATABLE READ, READ
 *   ONLY`, MySQL/MariaDB `START TRANSACTION WITH CONSISTENT SNAPSHOT, READ ONLY`, SQLite a read
 *   transaction, SQL Server `SNAPSHOT`), streamed `fetchRows` at a time (a server-side cursor or
 *   the driver's stream), so a row committed during the read is not half in this run, and memory
 *   stays flat in the result's size.
 * - Ends: a database that stays unreachable through `connectRetries` exits 75; a query the
 *   database refuses (no such column) exits 2, naming the source and the database's words; a
 *   failure after the first row exits 1. Nothing is upserted in any of them.
 *
 * Each row's `SourceRow.line` is its 1-based position in the result, what the quarantine names.
 */
export interface SqlSource<Row> extends SourceDeclaration<Row> {
  readonly kind: 'sql';
  /** The `IDEM_SOURCES` entry whose `url` is the source database, for example `shop`. */
  readonly database: string;
  /** The query, see {@link SqlSourceQuery}. */
  readonly query: SqlSourceQuery;
  /**
   * Validates and converts one result row (column name → value; instants as ISO 8601 text, as
   * every driver's are converted). A row it rejects goes to the quarantine with its position,
   * the field and the rule. @defaultValue derived from the pipeline's `columns` and `key` by
   * `definePipeline` (JSON-like values: numbers, decimal text, ISO instants)
   */
  readonly row?: ZodType<Row>;
  /**
   * Result columns the query must return: checked on the first row, and a missing one fails the
   * run with exit 2, naming it and listing the columns the query does return.
   * @defaultValue with a row derived from the columns: the key and every column's field; else none
   */
  readonly expectColumns?: readonly string[];
  /** Rows held at a time (a cursor's fetch size, a stream's buffer). @defaultValue 1000 */
  readonly fetchRows: number;
  /**
   * Attempts to connect beyond the first, with a doubling wait from 500 ms, before the run exits
   * 75 for a database that stays unreachable. @defaultValue 3
   */
  readonly connectRetries: number;
  /** What a quarantined row does to the run. @defaultValue 'fail' */
  readonly invalidRows: 'quarantine' | 'fail';
}

/**
 * Builds a {@link SqlSource} with its defaults; `definePipeline` checks its options (and that the
 * query builds a select) when the pipeline module is imported.
 *
 * @example
 * ```ts
 * source: sqlSource({
 *   database: 'shop',
 *   query: (db, { start, end }) => db('orders').where('shipped_at', '>=', start).andWhere('shipped_at', '<', end).orderBy('order_id'),
 * })
 * ```
 */
export function sqlSource<Row = Record<string, unknown>>(
  spec: Omit<SqlSource<Row>, 'kind' | 'invalidRows' | 'fetchRows' | 'connectRetries'> & Partial<Pick<SqlSource<Row>, 'invalidRows' | 'fetchRows' | 'connectRetries'>>,
): SqlSource<Row> {
  return Object.freeze({ kind: 'sql' as const, invalidRows: 'fail' as const, fetchRows: 1000, connectRetries: 3, ...spec });
}
