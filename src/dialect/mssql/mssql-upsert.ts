import type { Knex } from 'knex';
import { insertMissingSql } from '../insert-missing-sql.ts';
import type { UpsertCounts, UpsertPlan } from '../upsert-plan.ts';
import { quoteMssqlIdentifier as q } from './mssql-quote-identifier.ts';

/**
 * Appends `select @@rowcount` to a DML statement: knex's mssql client returns only the rows of
 * a raw batch (never the driver's row count), so the count comes back as a one-row result set.
 */
export function withRowCount(sql: string): string {
  return `${sql}; select @@rowcount as [row_count];`;
}

/** The row count of a batch built with {@link withRowCount}, from knex's raw mssql result. */
export function rowCountOf(result: unknown): number {
  const rows = result as { row_count: number }[];
  const count = rows[rows.length - 1]?.row_count;
  if (typeof count !== 'number') throw new Error(`expected a row count from SQL Server, got ${JSON.stringify(result)}`);
  return count;
}

/**
 * The UPDATE half of a SQL Server upsert: `UPDATE … FROM target JOIN staging` where the row
 * differs by `EXISTS (SELECT s.… EXCEPT SELECT t.…)`, SQL Server's null-safe "distinct" (EXCEPT
 * treats two NULLs as equal). `row_hash` is compared too, which also catches changes that only
 * add or remove trailing spaces (ANSI padding makes `=` and EXCEPT ignore them).
 * Bindings: last_changed_run_key, updated_at.
 */
export function mssqlUpdateChangedSql(plan: UpsertPlan): string {
  const compared = [...plan.columns, 'row_hash'].map(q);
  return (
    `update t set ${compared.map((c) => `${c} = s.${c}`).join(', ')}, ${q('last_changed_run_key')} = ?, ${q('updated_at')} = ? ` +
    `from ${q(plan.target)} as t inner join ${q(plan.staging)} as s ` +
    `on t.${q('source_system')} = s.${q('source_system')} and t.${q('source_reference')} = s.${q('source_reference')} ` +
    `where exists (select ${compared.map((c) => `s.${c}`).join(', ')} except select ${compared.map((c) => `t.${c}`).join(', ')})`
  );
}

/**
 * UPDATE then INSERT in the caller's transaction (no MERGE: it has known concurrency and
 * trigger pitfalls, and the app lock already serialises runs of a pipeline). Counts are the
 * statements' own `@@ROWCOUNT`s. Duplicate keys were already removed from staging.
 */
export async function mssqlUpsert(trx: Knex.Transaction, plan: UpsertPlan): Promise<UpsertCounts> {
  const now = plan.now as Knex.Value;
  const updated = rowCountOf(await trx.raw(withRowCount(mssqlUpdateChangedSql(plan)), [plan.runKey, now]));
  const inserted = rowCountOf(await trx.raw(withRowCount(insertMissingSql(plan, q)), [plan.runKey, plan.runKey, now, now]));
  return { inserted, updated };
}
