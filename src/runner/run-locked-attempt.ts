import type { Logger } from 'pino';
import type { Database } from '../db/database.ts';
import type { AppLock } from '../dialect/app-lock.ts';
import { coerceError } from '../errors/coerce-error.ts';
import { ConnectionLostError } from '../errors/connection-lost-error.ts';
import { DatabaseBusyError } from '../errors/database-busy-error.ts';
import { DiskFullError } from '../errors/disk-full-error.ts';
import { driverWords } from '../dialect/driver-words.ts';
import { connectionLostReason } from '../db/connection-lost-reason.ts';
import { IdemError } from '../errors/idem-error.ts';
import { LockLostError } from '../errors/lock-lost-error.ts';
import type { JobRunAttempt } from '../runs/job-run.ts';
import { startJobRun, touchJobRunHeartbeat } from '../runs/job-runs-queries.ts';
import { noopIfCompleted } from './noop-if-completed.ts';
import { recordSourceFileIdentity } from '../runs/source-file-identity.ts';
import { UnchangedFileCheck } from '../source/unchanged-file-check.ts';
import { sourceKindOf } from '../source/source-kinds.ts';
import { isoClock, type RunContext } from './run-context.ts';
import type { RunEnding } from './run-ending.ts';
import type { RunHooks } from './run-hooks.ts';
import { recordFailedAttempt } from './record-failed-attempt.ts';
import type { RunReport } from './run-report.ts';
import type { RunRequest } from './run-request.ts';
import type { RunCounts } from './run-stages.ts';

/**
 * Writes the `job_runs` heartbeat every `everyMs` until the returned function is called, so
 * `idem status` can tell a live run from a stuck one. A failed write is logged, never thrown.
 */
export function keepJobRunAlive(db: Database, attempt: JobRunAttempt, everyMs: number, now: () => string, log: Logger): () => void {
  const timer = setInterval(() => {
    touchJobRunHeartbeat(db, attempt, now()).catch((error: Error) => log.warn({ err: error }, 'heartbeat not written'));
  }, everyMs);
  timer.unref();
  return () => clearInterval(timer);
}

/**
 * The part of a run that holds its app lock, which it releases at the end whatever happens:
 * the completed check again (another run may have completed the key meanwhile); a dry run's
 * plan; else `job_runs` started (an earlier attempt found still `started` died: that is logged and
 * counted), extract and stage, upsert, `--force-reconcile`, and the post stage (see
 * `runPostPhase`). The stages and the post code are loaded only here, so a no-op never imports
 * them. Every `job_runs` write of the attempt names it (`JobRunAttempt`), so it never writes over
 * a newer attempt's row.
 * A polite stop (`ctx.stop`) ends the attempt at its next stage boundary with a `StoppedError`.
 * @throws whatever stops the attempt, once it is recorded as `stopped` (a `StoppedError`) or
 *   `failed` in `job_runs` and its recorded attempt, with the exit code it ends with (when the
 *   attempt got as far as to start one), except a lost lock: an attempt that lost its lock writes
 *   only its own recorded attempt (`lock_lost`), and the row is left to the attempt that holds the
 *   lock now (or the next one).
 */
export async function runLockedAttempt(
  ctx: RunContext,
  request: RunRequest,
  run: { lock: AppLock; report: RunReport; sourceLocation: string; hooks: RunHooks },
): Promise<RunEnding> {
  const { db, config } = ctx;
  const { pipeline, runKey } = request;
  const { lock, report, sourceLocation } = run;
  const now = isoClock(ctx);
  let stopHeartbeat = (): void => undefined;
  let attempt: JobRunAttempt | undefined;
  try {
    const noop = await noopIfCompleted(db, request, () => sourceLocation);
    if (noop) return noop;
    if (request.dryRun) {
      const { planRun } = await import('./plan-run.ts');
      const strategies = Object.fromEntries(pipeline.destinations.map((d) => [d.name, config.destinations[d.name]?.strategy ?? d.strategy]));
      const plan = await planRun(ctx, request, { lock, log: report.log, counts: report.counts, sourceLocation, nowIso: now(), strategies });
      return { outcome: 'planned', message: 'dry run: the plan below; nothing was written or sent', plan };
    }
    ctx.stop?.signal.throwIfAborted();
    const { jobRun, died } = await startJobRun(db, { jobName: pipeline.name, runKey: runKey.value, triggeredBy: request.triggeredBy, command: request.commandLine, now: now() });
    attempt = { id: jobRun.id, attempt: jobRun.attempts };
    await report.attemptStarted(jobRun.attempts);
    if (died) {
      const lastSign = died.heartbeatAt ?? died.startedAt;
      report.log.warn(
        { diedAttempt: died.attempts, diedAttemptHeartbeatAt: lastSign },
        `attempt ${died.attempts} of this run key never recorded its end (killed, its host lost, or its lock lost; last heartbeat ${lastSign}): attempt ${jobRun.attempts} starts over`,
      );
    }
    stopHeartbeat = keepJobRunAlive(db, attempt, config.heartbeatMs, now, report.log);
    const { runStages } = await import('./run-stages.ts');
    const unchanged = new UnchangedFileCheck(runKey.kind === 'file' ? runKey.sha256 : undefined);
    await runStages(ctx, request, { lock, log: report.log, counts: report.counts, sourceLocation, now, unchanged });
    // A date's file may be re-exported under the same date: the identity of what this run read
    // (hashed in the read's own pass, not read again) tells a rerun so.
    if (runKey.kind === 'date' && sourceKindOf(pipeline.source).readsFiles && unchanged.readIdentity) {
      await recordSourceFileIdentity(db, attempt, unchanged.readIdentity);
    }
    if (pipeline.destinations.length > 0 && request.forceReconcile) {
      const { reconcileRun } = await import('../post/reconcile-run.ts');
      const reconciled = await reconcileRun({ db, config, now }, pipeline, { runKey: runKey.value, lock, log: report.log });
      report.counts.reconcile = Object.fromEntries(reconciled.map(({ destination, ...c }) => [destination, c]));
    }
    await ctx.failpoints?.hit('before-post', report.log);
    ctx.stop?.signal.throwIfAborted();
    const { runPostPhase } = await import('./run-post-phase.ts');
    return await runPostPhase(ctx, request, { lock, report, attempt, hooks: run.hooks });
  } catch (caught) {
    const error = asDatabaseBusy(db, asDiskFull(db, asConnectionLost(coerceError(caught), report.counts), report.counts), report.counts);
    if (attempt) await recordFailedAttempt(db, attempt, { error, counts: report.counts, now: now(), log: report.log });
    throw error;
  } finally {
    stopHeartbeat();
    await lock.release();
  }
}

/**
 * The stage a run was in by the counts it had written: none of `stage` yet is extract and stage,
 * `stage` without `upsert` is the upsert, `upsert` is the post stage.
 */
function stageOf(counts: RunCounts): string {
  return counts.upsert ? 'post' : counts.stage ? 'upsert' : 'extract and stage';
}

/**
 * `error` as a {@link ConnectionLostError} when it, or what lies behind it, is a lost database
 * connection (the app lock's session included), naming the stage the run was in
 * ({@link stageOf}). Any other error as it is.
 */
function asConnectionLost(error: Error, counts: RunCounts): Error {
  // idem's own errors say what they are (a source's HTTP failure is no database connection), but
  // a lost lock may have lost its connection.
  if (error instanceof IdemError && !(error instanceof LockLostError)) return error;
  const reason = connectionLostReason(error);
  if (reason === undefined) return error;
  return new ConnectionLostError(stageOf(counts), error instanceof LockLostError ? `app lock "${error.lockName}" was lost: ${reason}` : reason, error);
}

/**
 * `error` as a {@link DiskFullError} when the database says it, or its disk, is full (its
 * adapter's `diskFull`), naming the stage the run was in ({@link stageOf}). Any other error as it is.
 */
function asDiskFull(db: Database, error: Error, counts: RunCounts): Error {
  if (error instanceof IdemError) return error;
  const cause = db.adapter.diskFull(error);
  if (cause === undefined) return error;
  return new DiskFullError(cause, `nothing of ${stageOf(counts)} was committed; free space on that disk (or give the database more), then run the same command again`, error);
}

/**
 * `error` as a {@link DatabaseBusyError} when the database kept what the run had to write locked
 * through every retry (its adapter's `isLockConflict`), the app lock's lease renewal included,
 * naming the stage the run was in ({@link stageOf}): retry later, not a failure. Any other error
 * as it is.
 */
function asDatabaseBusy(db: Database, error: Error, counts: RunCounts): Error {
  // A SQLite lease that could not be renewed for the busy database is not known to be taken.
  if (error instanceof LockLostError && db.adapter.isLockConflict(error.cause)) {
    return new DatabaseBusyError(stageOf(counts), `app lock "${error.lockName}" could not be renewed: ${driverWords(error.cause)}`, error);
  }
  if (error instanceof IdemError || !db.adapter.isLockConflict(error)) return error;
  return new DatabaseBusyError(stageOf(counts), driverWords(error), error);
}
