import type { Knex } from 'knex';
import type { SqlFragment } from '../../dialect/dialect-adapter.ts';
import type { SqlRunRange } from './sql-run-range.ts';
import type { SqlSource } from './sql-source.ts';

/** knex's methods of a query that reads: what a source query may be (`toSQL().method`). */
const READING_METHODS: ReadonlySet<string> = new Set(['select', 'first', 'pluck']);

/** What a value is, in words, for a query that returned something other than a builder. */
function whatItIs(value: unknown): string {
  if (typeof value === 'string') return `a string (${JSON.stringify(value.length > 60 ? `${value.slice(0, 60)}…` : value)})`;
  if (value === null || value === undefined) return String(value);
  if (typeof value === 'object' && typeof (value as { toSQL?: unknown }).toSQL === 'function' && typeof (value as { where?: unknown }).where !== 'function') return 'knex.raw(…)';
  if (typeof (value as { then?: unknown }).then === 'function') return 'a promise';
  return typeof value;
}

/**
 * The SQL and bindings of a source's query for `range`, built with `knex` (which need not be
 * connected: nothing runs). The query must return a knex select builder: a string or `knex.raw`
 * would let a date be written into SQL text, and a write has no place in a read.
 * @throws TypeError naming `source.query`, what it returned or threw, and the rule.
 */
export function buildSourceQuery(source: Pick<SqlSource<unknown>, 'query' | 'database'>, knex: Knex, range: SqlRunRange): SqlFragment {
  let built: unknown;
  try {
    built = source.query(knex, range);
  } catch (error) {
    throw new TypeError(`source.query of database "${source.database}" threw while building the query: ${(error as Error).message}`);
  }
  const isBuilder = typeof built === 'object' && built !== null && typeof (built as { toSQL?: unknown }).toSQL === 'function' && typeof (built as { where?: unknown }).where === 'function';
  if (!isBuilder) {
    throw new TypeError(
      `source.query must return a knex query builder, for example db('orders').where('shipped_at', '>=', range.start), so values are bound parameters (got ${whatItIs(built)}); ` +
        'a SQL string or knex.raw could have the date written into its text',
    );
  }
  const { sql, bindings, method } = (built as Knex.QueryBuilder).toSQL() as Knex.Sql & { method: string };
  if (!READING_METHODS.has(method)) throw new TypeError(`source.query must build a select (got a ${method}): a source is only read`);
  return { sql, bindings };
}
