import type { Queryable } from '../db/queryable.ts';
import type { RunKey } from './run-key.ts';

/**
 * The newest business-date run key of a job later than `runKey`, in any state (a later date that
 * failed still read a newer export), or undefined when `runKey` is the newest. A file run key
 * (`--file`) has no date to compare: it is always taken for the newest.
 */
export async function newerRunKey(q: Queryable, jobName: string, runKey: RunKey): Promise<string | undefined> {
  if (runKey.kind !== 'date') return undefined;
  const row = (await q.knex('job_runs')
    .where({ job_name: jobName })
    .where('run_key', '>', runKey.value)
    // Business dates only: `file:…` and `repost:…` keys sort after every date.
    .where('run_key', 'like', '____-__-__')
    .max({ run_key: 'run_key' })
    .first()) as { run_key: string | null } | undefined;
  return row?.run_key ?? undefined;
}
