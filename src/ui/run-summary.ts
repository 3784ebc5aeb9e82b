import type { JobRun } from '../runs/job-run.ts';

/** A stage's counts as `key value` pairs, skipping nested objects and its duration (`ms`, shown on the chart). */
function countPairs(counts: Record<string, unknown>): string {
  return Object.entries(counts)
    .filter(([key, value]) => key !== 'ms' && value !== null && typeof value !== 'object')
    .map(([key, value]) => `${key} ${String(value)}`)
    .join(', ');
}

/**
 * A run's counts as the stages recorded them in `job_runs.counts`, one entry per stage (and per
 * destination of `post` and `reconcile`): `[['extract', 'rows 25, quarantined 0'], ['post: accounting', 'sent 25, …']]`.
 */
export function stageCounts(run: JobRun): [string, string][] {
  const out: [string, string][] = [];
  for (const [stage, counts] of Object.entries(run.counts ?? {})) {
    if (counts === null || typeof counts !== 'object') continue;
    const entries = Object.entries(counts as Record<string, unknown>);
    const perDestination = (stage === 'post' || stage === 'reconcile') && entries.every(([, v]) => v !== null && typeof v === 'object');
    if (perDestination) for (const [destination, c] of entries) out.push([`${stage}: ${destination}`, countPairs(c as Record<string, unknown>)]);
    else out.push([stage, countPairs(counts as Record<string, unknown>)]);
  }
  return out;
}

/** The run's summary line: its stages' counts, `;`-separated. */
export function summaryLine(run: JobRun): string {
  return stageCounts(run).map(([stage, counts]) => `${stage}: ${counts}`).join('; ') || 'no counts recorded';
}

/** The stages that recorded how long they took (`ms`), in run order, as chart bars. */
export function stageDurations(run: JobRun): { label: string; ms: number }[] {
  const bars: { label: string; ms: number }[] = [];
  for (const [stage, counts] of Object.entries(run.counts ?? {})) {
    if (counts === null || typeof counts !== 'object') continue;
    const c = counts as Record<string, unknown>;
    if (typeof c.ms === 'number') bars.push({ label: stage === 'stage' ? 'extract + stage' : stage, ms: c.ms });
    else if (stage === 'post' || stage === 'reconcile') {
      for (const [destination, d] of Object.entries(c)) {
        const ms = (d as Record<string, unknown> | null)?.ms;
        if (typeof ms === 'number') bars.push({ label: `${stage}: ${destination}`, ms });
      }
    }
  }
  return bars;
}
