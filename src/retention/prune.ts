import type { Knex } from 'knex';
import type { Logger } from 'pino';
import type { Database } from '../db/database.ts';
import { deleteByIds } from '../db/delete-by-ids.ts';
import { pruneLedger } from '../ledger/prune-ledger.ts';
import { column } from '../column/column-type.ts';
import type { PipelineDefinition } from '../pipeline/pipeline-definition.ts';
import { appLockName } from '../runs/app-lock-name.ts';
import { deleteRecordedAttemptsOf } from '../runs/job-run-attempts-queries.ts';

const HOUR_MS = 3_600_000;
/** Stripe keeps idempotency keys for 24 hours. */
const DEFAULT_IDEMPOTENCY_WINDOW_HOURS = 24;

/** What `idem prune` deleted (or, with `dryRun`, would delete), by table. */
export interface PruneCounts {
  readonly jobRuns: number;
  /** The recorded attempts of those runs (`job_run_attempts`), no-ops included. */
  readonly jobRunAttempts: number;
  readonly quarantine: number;
  readonly ledger: number;
  /** Staging rows left by failed runs, per pipeline; a running pipeline is skipped. */
  readonly staging: Record<string, number | 'skipped: running'>;
}

async function deleteIds(db: Database, table: string, ids: readonly (number | string)[], dryRun: boolean): Promise<number> {
  if (!dryRun) await deleteByIds(db, table, ids);
  return ids.length;
}

/**
 * Retention for idem's own tables, older than a cutoff:
 * - `job_runs`: `completed` runs (failed and review runs stay: they still need someone), but
 *   never a job's newest completed business date, where `--catch-up` starts; with each, its
 *   recorded attempts (`job_run_attempts`);
 * - `quarantine`: every row;
 * - the post ledger: rows nothing needs any more (see `pruneLedger`), which also stay at least
 *   the destination's idempotency window (`idempotencyWindowHours`);
 * - staging rows left behind by failed runs, taken under each pipeline's app lock.
 */
export async function prune(
  db: Database,
  pipelines: readonly PipelineDefinition[],
  options: { olderThanMs: number; now: Date; dryRun: boolean; lockLeaseMs: number; log: Logger },
): Promise<PruneCounts> {
  const instant = (ms: number): Knex.Value => db.adapter.toDriverValue(column.instant(), new Date(ms).toISOString()) as Knex.Value;
  const nowMs = options.now.getTime();
  const cutoff = instant(nowMs - options.olderThanMs);
  const ids = async (query: Knex.QueryBuilder): Promise<(number | string)[]> => ((await query.select('id')) as { id: number | string }[]).map((r) => r.id);

  // The newest completed date of each job stays: it is where --catch-up starts from.
  const newest = db.knex('job_runs as k').max('k.run_key').where('k.status', 'completed').whereNot('k.run_key', 'like', 'file:%').whereRaw('k.job_name = job_runs.job_name');
  const prunable = db.knex('job_runs').where({ status: 'completed' }).where('finished_at', '<', cutoff).whereNot('run_key', '=', db.knex.raw('coalesce((?), ?)', [newest, '']));
  const prunedRuns = await ids(prunable);
  const jobRunAttempts = await deleteRecordedAttemptsOf(db, prunedRuns, { dryRun: options.dryRun });
  const jobRuns = await deleteIds(db, 'job_runs', prunedRuns, options.dryRun);
  const quarantine = await deleteIds(db, 'quarantine', await ids(db.knex('quarantine').where('created_at', '<', cutoff)), options.dryRun);

  let ledger = 0;
  for (const pipeline of pipelines) {
    for (const destination of pipeline.destinations) {
      const windowMs = (destination.idempotencyWindowHours ?? DEFAULT_IDEMPOTENCY_WINDOW_HOURS) * HOUR_MS;
      const beforeIso = new Date(nowMs - Math.max(options.olderThanMs, windowMs)).toISOString();
      ledger += await pruneLedger(db, { jobName: pipeline.name, destination: destination.name, beforeIso, dryRun: options.dryRun });
    }
  }

  const staging: Record<string, number | 'skipped: running'> = {};
  for (const pipeline of pipelines) {
    const attempt = await db.adapter.tryAcquireAppLock(db.knex, { name: appLockName(pipeline.name), owner: `idem prune pid ${process.pid}`, leaseMs: options.lockLeaseMs });
    if (!attempt.acquired) {
      staging[pipeline.name] = 'skipped: running';
      continue;
    }
    try {
      const rows = Number(((await db.knex(pipeline.tables.staging).count({ n: '*' })) as { n: number | string }[])[0]!.n);
      if (!options.dryRun && rows > 0) await db.knex(pipeline.tables.staging).delete();
      staging[pipeline.name] = rows;
    } finally {
      await attempt.lock.release();
    }
  }
  const counts = { jobRuns, jobRunAttempts, quarantine, ledger, staging };
  options.log.info({ stage: 'prune', dryRun: options.dryRun, ...counts }, `${options.dryRun ? 'would delete' : 'deleted'}: ${jobRuns} job run(s) with ${jobRunAttempts} attempt(s), ${quarantine} quarantine row(s), ${ledger} ledger row(s)`);
  return counts;
}
