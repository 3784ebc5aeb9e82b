import type { Knex } from 'knex';
import { column } from '../column/column-type.ts';
import type { DialectAdapter } from '../dialect/dialect-adapter.ts';
import { PipelineError } from '../errors/pipeline-error.ts';
import type { DerivedScope, DerivedTableDefinition } from '../pipeline/derived-table-definition.ts';
import type { PipelineDefinition } from '../pipeline/pipeline-definition.ts';
import { scopeFilterProblem } from '../pipeline/table-definition-problems.ts';
import { businessDateRange } from '../runs/business-date-range.ts';

/**
 * What rebuilding one derived table did, over the run's scopes. `deleted` and `inserted` are
 * rows the statements removed and wrote. With `countIdentical` (a dry run), `identical` is how
 * many rows came back the same, and `deleted` / `inserted` count only the others: the rows a
 * rebuild really takes away and adds.
 */
export interface DerivedCounts {
  readonly scopes: readonly string[];
  readonly deleted: number;
  readonly inserted: number;
  readonly identical?: number;
}

/** A scope's rows, each as its canonical values' JSON, counted (a multiset). */
async function scopeRows(trx: Knex.Transaction, adapter: DialectAdapter, derived: DerivedTableDefinition, scope: unknown): Promise<Map<string, number>> {
  const specs = Object.entries(derived.columns);
  const rows = (await trx(derived.table).select(specs.map(([name]) => name)).where(derived.scope, scope as Knex.Value)) as Record<string, unknown>[];
  const counted = new Map<string, number>();
  for (const row of rows) {
    const key = JSON.stringify(specs.map(([name, spec]) => (row[name] === null ? null : adapter.fromDriverValue(spec, row[name]))));
    counted.set(key, (counted.get(key) ?? 0) + 1);
  }
  return counted;
}

function sharedCount(a: Map<string, number>, b: Map<string, number>): number {
  let shared = 0;
  for (const [key, n] of a) shared += Math.min(n, b.get(key) ?? 0);
  return shared;
}

/**
 * `INSERT INTO t (scope, c…) SELECT ?, q.c… FROM (query) AS q`: the scope column bound by idem,
 * the others read by name from the query's columns, in the declared order.
 */
export function derivedInsert(knex: Knex | Knex.Transaction, derived: DerivedTableDefinition, query: Knex.QueryBuilder, scopeValue: Knex.Value): Knex.Raw {
  const others = Object.keys(derived.columns).filter((name) => name !== derived.scope);
  const select = knex.select([knex.raw('? as ??', [scopeValue, derived.scope]), ...others.map((name) => `q.${name}`)]).from(query.as('q')).toSQL();
  return knex.raw(`insert into ?? (${['??', ...others.map(() => '??')].join(', ')}) ${select.sql}`, [derived.table, derived.scope, ...others, ...select.bindings]);
}

/**
 * Rebuilds each derived table of the pipeline for each scope, in the caller's transaction (the
 * upsert's): `DELETE FROM t WHERE scope = ?`, then `INSERT INTO t (scope, c…) SELECT ?, q.c… FROM
 * (query) AS q`. The scope column is written by idem, so no row lands in another scope; the
 * query's filter on the scope is checked again on the query as built (see `scopeFilterProblem`).
 *
 * @param scopes per derived table, the business dates (`YYYY-MM-DD`) it is rebuilt for
 * @param countIdentical read each scope's rows before and after (canonical values) to count the
 *   rows that came back the same: for a dry run's plan; memory is the size of one scope's rows.
 * @throws PipelineError for a query that, built with this run's scope, does not filter on it.
 */
export async function rebuildDerivedTables(
  trx: Knex.Transaction,
  adapter: DialectAdapter,
  pipeline: PipelineDefinition,
  args: { scopes: Readonly<Record<string, readonly string[]>>; countIdentical: boolean },
): Promise<Record<string, DerivedCounts>> {
  const counts: Record<string, DerivedCounts> = {};
  for (const derived of pipeline.derived) {
    const scopeSpec = derived.columns[derived.scope]!;
    let deleted = 0;
    let inserted = 0;
    let identical = 0;
    const scopes = args.scopes[derived.table] ?? [];
    for (const value of scopes) {
      const range = businessDateRange(value, pipeline.timeZone);
      const instant = (iso: string) => adapter.toDriverValue(column.instant(), iso) as string | Date;
      const scope: DerivedScope = { value, start: instant(range.start), end: instant(range.end) };
      const scopeValue = adapter.toDriverValue(scopeSpec, value) as Knex.Value;
      const query = derived.query(trx(pipeline.tables.target), scope, trx.raw.bind(trx) as Knex.RawBuilder);
      const problem = scopeFilterProblem(query, scope);
      if (problem !== undefined) throw new PipelineError(`pipeline "${pipeline.name}": derived table ${derived.table}: query ${problem}`);
      const before = args.countIdentical ? await scopeRows(trx, adapter, derived, scopeValue) : undefined;
      deleted += await trx(derived.table).where(derived.scope, scopeValue).delete();
      await derivedInsert(trx, derived, query, scopeValue);
      const [{ n }] = (await trx(derived.table).where(derived.scope, scopeValue).count({ n: '*' })) as [{ n: number | string }];
      inserted += Number(n);
      if (before) identical += sharedCount(before, await scopeRows(trx, adapter, derived, scopeValue));
    }
    counts[derived.table] = args.countIdentical
      ? { scopes, deleted: deleted - identical, inserted: inserted - identical, identical }
      : { scopes, deleted, inserted };
  }
  return counts;
}
