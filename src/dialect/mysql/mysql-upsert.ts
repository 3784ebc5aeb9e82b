import type { Knex } from 'knex';
import type { ResultSetHeader } from 'mysql2';
import { insertMissingSql } from '../insert-missing-sql.ts';
import type { UpsertCounts, UpsertPlan } from '../upsert-plan.ts';

/** Quotes a validated snake_case identifier the MySQL way (`` `name` ``). */
export function quoteMysqlIdentifier(name: string): string {
  return `\`${name}\``;
}

const q = quoteMysqlIdentifier;

/**
 * The UPDATE half of a MySQL/MariaDB upsert: a multi-table `UPDATE target JOIN staging` where
 * the row differs by `NOT (t.a <=> s.a AND …)` (`<=>` is the null-safe equal, comparing as the
 * column types hold the values; text in its exact collation). `row_hash` is compared too.
 * Bindings: last_changed_run_key, updated_at.
 */
export function mysqlUpdateChangedSql(plan: UpsertPlan): string {
  const compared = [...plan.columns, 'row_hash'];
  const key = (column: string): string => `t.${q(column)} = s.${q(column)}`;
  return (
    `update ${q(plan.target)} t join ${q(plan.staging)} s on ${key('source_system')} and ${key('source_reference')} ` +
    `set ${compared.map((c) => `t.${q(c)} = s.${q(c)}`).join(', ')}, t.${q('last_changed_run_key')} = ?, t.${q('updated_at')} = ? ` +
    `where not (${compared.map((c) => `t.${q(c)} <=> s.${q(c)}`).join(' and ')})`
  );
}

/** What knex's `raw` returns on mysql2 for a statement without a result set. */
export type MysqlRawResult = [ResultSetHeader, unknown];

/**
 * UPDATE then INSERT in the caller's transaction; counts are the statements' own
 * `affectedRows`. mysql2 connects with `FOUND_ROWS`, which makes an UPDATE report the rows it
 * matched rather than the rows it changed; the WHERE above matches only rows that differ, so the
 * two are the same here.
 */
export async function mysqlUpsert(trx: Knex.Transaction, plan: UpsertPlan): Promise<UpsertCounts> {
  const [updated] = (await trx.raw(mysqlUpdateChangedSql(plan), [plan.runKey, plan.now as Knex.Value])) as MysqlRawResult;
  const [inserted] = (await trx.raw(insertMissingSql(plan, q), [plan.runKey, plan.runKey, plan.now as Knex.Value, plan.now as Knex.Value])) as MysqlRawResult;
  return { inserted: inserted.affectedRows, updated: updated.affectedRows };
}
