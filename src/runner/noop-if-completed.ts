import type { Database } from '../db/database.ts';
import { findJobRun, lastCompletedDate } from '../runs/job-runs-queries.ts';
import { sourceKindOf } from '../source/source-kinds.ts';
import { findSourceFileIdentity, sourceFileIdentity, type SourceFileIdentity } from '../runs/source-file-identity.ts';
import type { RunEnding } from './run-ending.ts';
import type { RunRequest } from './run-request.ts';

/**
 * A run's `noop` ending when its run key is already `completed` in `job_runs`, else undefined.
 * `--force`, `--force-reconcile` and `--dry-run` run a completed key all the same. So does a
 * plain run of an incremental source's newest completed business date (or a later one): it
 * reads what changed since the source's mark, so a change at the source on the same day is
 * picked up without `--force`. An older completed date stays a no-op. A completed date whose
 * file has changed since (another size or SHA-256 than `job_runs` recorded) is no no-op either:
 * it ends `needs-review` (exit 3) without reading the file, and `--force` loads it.
 * @param sourceLocation where the run of this run key reads (asked only for a completed date of a kind that reads files)
 */
export async function noopIfCompleted(db: Database, request: RunRequest, sourceLocation: () => string): Promise<RunEnding | undefined> {
  if (request.force || request.forceReconcile || request.dryRun) return undefined;
  const { pipeline, runKey } = request;
  if ((await findJobRun(db, pipeline.name, runKey.value))?.status !== 'completed') return undefined;
  const changed = await changedSourceFile(db, request, sourceLocation);
  if (changed) return changed;
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

/**
 * The ending of a plain rerun of a completed business date whose file is not the one the
 * completed run read (a producer re-exported the date after a fix): a person decides, `--force`
 * loads it. Undefined when the kind reads no files, the run recorded no identity, or the file is
 * gone (nothing to load: the no-op stands).
 */
async function changedSourceFile(db: Database, request: RunRequest, sourceLocation: () => string): Promise<RunEnding | undefined> {
  const { pipeline, runKey } = request;
  if (runKey.kind !== 'date' || !sourceKindOf(pipeline.source).readsFiles) return undefined;
  const recorded = await findSourceFileIdentity(db, pipeline.name, runKey.value);
  if (recorded === undefined) return undefined;
  const file = sourceLocation();
  const now = await sourceFileIdentity(file);
  if (now === undefined || (now.bytes === recorded.bytes && now.sha256 === recorded.sha256)) return undefined;
  const describe = (identity: SourceFileIdentity): string => `${identity.bytes} bytes, sha256 ${identity.sha256.slice(0, 16)}`;
  return {
    outcome: 'needs-review',
    message: `the file changed since the completed run of ${runKey.value} (${file}: ${describe(recorded)} then, ${describe(now)} now), so it was not loaded; --force loads it`,
  };
}
