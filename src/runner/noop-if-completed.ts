import type { Database } from '../db/database.ts';
import { findJobRun } from '../runs/job-runs-queries.ts';
import type { RunEnding } from './run-ending.ts';
import type { RunRequest } from './run-request.ts';

/**
 * A run's `noop` ending when its run key is already `completed` in `job_runs`, else undefined.
 * `--force`, `--force-reconcile` and `--dry-run` run a completed key all the same.
 */
export async function noopIfCompleted(db: Database, request: RunRequest): Promise<RunEnding | undefined> {
  if (request.force || request.forceReconcile || request.dryRun) return undefined;
  if ((await findJobRun(db, request.pipeline.name, request.runKey.value))?.status !== 'completed') return undefined;
  return { outcome: 'noop', message: 'run key already completed: nothing to do (--force runs it again)' };
}
