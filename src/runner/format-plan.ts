import type { PlanPart, RunPlan } from './run-plan.ts';

/** The plan as text for a person. */
export function formatPlan(plan: RunPlan): string {
  const line = (label: string, p: PlanPart): string => `  ${label.padEnd(8)} ${String(p.count).padStart(7)}${p.first.length ? `  e.g. ${p.first.join(', ')}${p.count > p.first.length ? ', …' : ''}` : ''}`;
  return [
    `plan (dry run, nothing written): ${plan.target.table}`,
    line('insert', plan.target.insert),
    line('update', plan.target.update),
    line('leave', plan.target.leave),
    ...(plan.target.delete ? [line('delete', plan.target.delete)] : []),
    ...(plan.target.held ? [`  held: ${plan.target.held}`] : []),
    ...plan.destinations.flatMap((d) => [`requests to ${d.destination} (${d.strategy})`, line('send', d.requests)]),
    ...plan.derived.flatMap((d) => [
      `derived table ${d.table} (${d.scopes.length === 1 ? d.scopes[0] : `${d.scopes.length} dates`})`,
      ...([['delete', d.delete], ['insert', d.insert], ['identical', d.identical]] as const).map(([label, n]) => `  ${label.padEnd(9)} ${String(n).padStart(6)}`),
    ]),
    '',
  ].join('\n');
}
