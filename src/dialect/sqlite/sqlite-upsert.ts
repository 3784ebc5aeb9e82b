import type { Knex } from 'knex';
import { insertMissingSql } from '../insert-missing-sql.ts';
import { quoteAnsiIdentifier as q } from '../quote-ansi-identifier.ts';
import type { UpsertCounts, UpsertPlan } from '../upsert-plan.ts';

/**
 * The UPDATE half of a SQLite upsert (`UPDATE … FROM`, SQLite 3.33+): `IS NOT` is SQLite's
 * null-safe "differs". Bindings: last_changed_run_key, updated_at.
 */
export function sqliteUpdateChangedSql(plan: UpsertPlan): string {
  const compared = [...plan.columns, 'row_hash'];
  return (
    `update ${q(plan.target)} as t set ${compared.map((c) => `${q(c)} = s.${q(c)}`).join(', ')}, ` +
    `"last_changed_run_key" = ?, "updated_at" = ? from ${q(plan.staging)} as s ` +
    `where t."source_system" = s."source_system" and t."source_reference" = s."source_reference" ` +
    `and (${compared.map((c) => `t.${q(c)} is not s.${q(c)}`).join(' or ')})`
  );
}

/** UPDATE then INSERT in the caller's transaction; counts are the statements' own changes. */
export async function sqliteUpsert(trx: Knex.Transaction, plan: UpsertPlan): Promise<UpsertCounts> {
  const updated = await trx.raw(sqliteUpdateChangedSql(plan), [plan.runKey, plan.now as Knex.Value]);
  const inserted = await trx.raw(insertMissingSql(plan, q), [plan.runKey, plan.runKey, plan.now as Knex.Value, plan.now as Knex.Value]);
  // better-sqlite3 reports a statement's row count as `changes`.
  return { inserted: (inserted as { changes: number }).changes, updated: (updated as { changes: number }).changes };
}
