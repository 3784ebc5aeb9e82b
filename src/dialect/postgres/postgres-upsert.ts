import type { Knex } from 'knex';
import { insertMissingSql } from '../insert-missing-sql.ts';
import type { UpsertCounts, UpsertPlan } from '../upsert-plan.ts';
import { quoteAnsiIdentifier as q } from '../quote-ansi-identifier.ts';

/**
 * The UPDATE half of a PostgreSQL upsert: `UPDATE … FROM staging` where the row value differs by
 * `IS DISTINCT FROM` (null-safe, compared as the column types hold the values). `row_hash` is
 * compared too. Bindings: last_changed_run_key, updated_at.
 */
export function postgresUpdateChangedSql(plan: UpsertPlan): string {
  const compared = [...plan.columns, 'row_hash'];
  return (
    `update ${q(plan.target)} as t set ${compared.map((c) => `${q(c)} = s.${q(c)}`).join(', ')}, ` +
    `"last_changed_run_key" = ?, "updated_at" = ? from ${q(plan.staging)} as s ` +
    `where t."source_system" = s."source_system" and t."source_reference" = s."source_reference" ` +
    `and (${compared.map((c) => `t.${q(c)}`).join(', ')}) is distinct from (${compared.map((c) => `s.${q(c)}`).join(', ')})`
  );
}

/** UPDATE then INSERT in the caller's transaction; counts are the statements' own row counts. */
export async function postgresUpsert(trx: Knex.Transaction, plan: UpsertPlan): Promise<UpsertCounts> {
  const updated = await trx.raw(postgresUpdateChangedSql(plan), [plan.runKey, plan.now as Knex.Value]);
  const inserted = await trx.raw(insertMissingSql(plan, q), [plan.runKey, plan.runKey, plan.now as Knex.Value, plan.now as Knex.Value]);
  return { inserted: inserted.rowCount as number, updated: updated.rowCount as number };
}
