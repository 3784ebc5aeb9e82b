import { hostname } from 'node:os';
import { coerceError } from '../errors/coerce-error.ts';
import { LockHeldError } from '../errors/lock-held-error.ts';
import { StoppedError } from '../errors/stopped-error.ts';
import { UsageError } from '../errors/usage-error.ts';
import { assertNoSchemaDrift } from '../migration/assert-no-schema-drift.ts';
import { appLockName } from '../runs/app-lock-name.ts';
import { sourceKindOf } from '../source/source-kinds.ts';
import { noopIfCompleted } from './noop-if-completed.ts';
import { resolveSourceLocation } from './resolve-source-location.ts';
import type { RunContext } from './run-context.ts';
import { recordNoop } from './record-noop.ts';
import type { RunEnding } from './run-ending.ts';
import type { RunHooks } from './run-hooks.ts';
import { RunReport } from './run-report.ts';
import type { RunRequest } from './run-request.ts';
import type { RunResult } from './run-result.ts';

/**
 * What a run does before its lock: the schema drift check, the completed check, the configuration checks (a destination
 * without a URL, `--force-reconcile` without a lookup) and a CSV date run's missing file, so
 * each ends the run before it takes the lock; then the lock, and the locked attempt. What only a
 * run past the completed check uses (the destinations' settings, the locked attempt) is loaded
 * past it: a no-op loads none of it.
 */
async function checkThenRun(ctx: RunContext, request: RunRequest, report: RunReport, hooks: RunHooks): Promise<RunEnding> {
  const { db, config } = ctx;
  const { pipeline, runKey } = request;
  // Before anything is written, a completed run key's no-op included: a pipeline whose columns
  // differ from its tables would write false updates (or fail half-way on a missing table).
  await assertNoSchemaDrift(db, pipeline);
  const noop = await noopIfCompleted(db, request, () => request.sourceLocation ?? resolveSourceLocation(config, pipeline, runKey));
  if (noop) return noop;
  if (!request.dryRun) {
    const { resolveDestination } = await import('../post/resolve-destination.ts');
    for (const destination of pipeline.destinations) {
      report.sendsTo(resolveDestination(config, destination));
      if (request.forceReconcile && !destination.lookup) throw new UsageError(`--force-reconcile needs a lookup on destination "${destination.name}"`);
    }
  }
  const sourceLocation = request.sourceLocation ?? resolveSourceLocation(config, pipeline, runKey);
  const skipped = sourceKindOf(pipeline.source).skipReason?.(pipeline.source, runKey, sourceLocation);
  if (skipped !== undefined) {
    report.counts.extract = { skipped };
    return { outcome: 'skipped', message: `${skipped} for ${runKey.value}; skipped (the pipeline declares missing: 'skip')` };
  }
  // Loaded before the lock is taken, so nothing is awaited between taking it and the attempt that releases it.
  const { runLockedAttempt } = await import('./run-locked-attempt.ts');
  ctx.stop?.signal.throwIfAborted();
  const lockName = appLockName(pipeline.name);
  const askedAt = performance.now();
  const attempt = await db.adapter.tryAcquireAppLock(db.knex, {
    name: lockName,
    // Host and pid first: PostgreSQL keeps only 63 bytes of it.
    owner: `pid ${process.pid} on ${hostname()}, run ${runKey.value}`,
    leaseMs: config.lockLeaseMs,
  });
  report.lockAttempted(performance.now() - askedAt, attempt.acquired);
  if (!attempt.acquired) return { outcome: 'lock-held', error: new LockHeldError(lockName, attempt.holder) };
  return runLockedAttempt(ctx, request, { lock: attempt.lock, report, sourceLocation, hooks });
}

/**
 * Runs one pipeline for one run key: app lock → `job_runs` started → extract and stage →
 * duplicate-key rule → upsert → post (shared with any `idem work` processes, see
 * `sharePostStage`) → `job_runs` completed, written once by whichever process sees the last item
 * posted; the run waits, lock held, until then. A completed run key is a logged no-op unless
 * `force`; a held lock returns at once (`lock-held`); any failure is recorded in `job_runs` and
 * leaves a state a plain rerun finishes; a polite stop (`ctx.stop`) ends it `stopped` at its next
 * stage boundary, recorded in `job_runs`, its lock released. Ends with one summary line (see `RunReport`); the
 * result's outcome sets the exit code (src/outcome/outcome.ts). Never throws.
 */
export async function runPipeline(ctx: RunContext, request: RunRequest, hooks: RunHooks = {}): Promise<RunResult> {
  const report = new RunReport(ctx.logger, request, ctx.telemetry);
  let ending: RunEnding;
  try {
    ending = await checkThenRun(ctx, request, report, hooks);
  } catch (caught) {
    const error = coerceError(caught);
    ending = { outcome: error instanceof StoppedError ? 'stopped' : 'failed', error };
  }
  if (ending.outcome === 'noop') await recordNoop(ctx, request, report);
  return report.finish(ending);
}
