import type { Database } from '../db/database.ts';
import { findJobRun, lastCompletedDate } from '../runs/job-runs-queries.ts';
import { sourceKindOf } from '../source/source-kinds.ts';
import type { RunEnding } from './run-ending.ts';
import type { RunRequest } from './run-request.ts';

/**
 * A run's `noop` ending when its run key is already `completed` in `job_runs`, else undefined.
 * `--force`, `--force-reconcile` and `--dry-run` run a completed key all the same. So does a
 * plain run of an incremental source's newest completed business date (or a later one): it
 * reads what changed since the source's mark, so a change at the source on the same day is
 * picked up without `--force`. An older completed date stays a no-op.
 */
export async function noopIfCompleted(db: Database, request: RunRequest): Promise<RunEnding | undefined> {
  if (request.force || request.forceReconcile || request.dryRun) return undefined;
  const { pipeline, runKey } = request;
  if ((await findJobRun(db, pipeline.name, runKey.value))?.status !== 'completed') return undefined;
  if (sourceKindOf(pipeline.source).incremental?.(pipeline.source) && runKey.kind === 'date') {
    const newest = await lastCompletedDate(db, pipeline.name);
    if (newest === undefined || runKey.value >= newest) return undefined;
    return {
      outcome: 'noop',
      message: `run key already completed: nothing to do. The source is incremental: ${newest} is its newest completed run key, and a plain run of it (or of a later date) reads what changed since; --force reads everything under this one`,
    };
  }
  return { outcome: 'noop', message: 'run key already completed: nothing to do (--force runs it again)' };
}
