import type { UpsertPlan } from './upsert-plan.ts';

/**
 * The INSERT half of every dialect's upsert, in standard SQL: copy the staging rows whose key the
 * target lacks. Bindings, in order: first_run_key, last_changed_run_key, created_at, updated_at.
 */
export function insertMissingSql(plan: UpsertPlan, quote: (name: string) => string): string {
  const copied = ['source_system', 'source_reference', ...plan.columns, 'row_hash'].map(quote);
  const stamps = ['first_run_key', 'last_changed_run_key', 'created_at', 'updated_at'].map(quote);
  const key = (column: string): string => `t.${quote(column)} = s.${quote(column)}`;
  return (
    `insert into ${quote(plan.target)} (${[...copied, ...stamps].join(', ')}) ` +
    `select ${copied.map((c) => `s.${c}`).join(', ')}, ?, ?, ?, ? from ${quote(plan.staging)} s ` +
    `where not exists (select 1 from ${quote(plan.target)} t where ${key('source_system')} and ${key('source_reference')})`
  );
}
