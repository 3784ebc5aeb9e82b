import type { Logger } from 'pino';
import type { Database } from '../db/database.ts';
import { ConnectionLostError } from '../errors/connection-lost-error.ts';
import { LockLostError } from '../errors/lock-lost-error.ts';
import { exitCodeOf } from '../outcome/outcome.ts';
import { endingStatusOf, type JobRunAttempt } from '../runs/job-run.ts';
import { finishJobRun, recordLostLock } from '../runs/job-runs-queries.ts';
import { failureOutcomeOf } from './run-report.ts';

/**
 * Records how a started attempt that `error` stopped ended, with the exit code it ends with: a
 * lost app lock (a `LockLostError`, or a lost connection behind which one lies) in the attempt's
 * own record only (`recordLostLock`: `job_runs` is left to the attempt that holds the lock now,
 * or to the next one); any other error as `stopped` (a polite stop's `StoppedError`) or `failed`
 * in `job_runs` and its record. A write that
 * fails (the database gone too) is logged, never thrown.
 */
export async function recordFailedAttempt(db: Database, attempt: JobRunAttempt, args: { error: Error; counts: Record<string, unknown>; now: string; log: Logger }): Promise<void> {
  const { error, log } = args;
  const ended = { counts: args.counts, error: error.message, exitCode: exitCodeOf(failureOutcomeOf(error)), now: args.now };
  if (error instanceof LockLostError || (error instanceof ConnectionLostError && error.cause instanceof LockLostError)) {
    log.warn('the app lock was lost: job_runs is left to the attempt that holds it now, or to the next one');
    await recordLostLock(db, attempt, ended).catch((e: Error) => log.warn({ err: e }, 'could not record the lost lock in job_run_attempts'));
  } else {
    await finishJobRun(db, attempt, { status: endingStatusOf(error), ...ended }).catch((e: Error) => log.error({ err: e }, 'could not record the failure in job_runs'));
  }
}
