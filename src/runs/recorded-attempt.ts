import type { JobRunStatus } from './job-run.ts';

/**
 * How a recorded attempt ended, or that it has not yet: whatever `job_runs` said of it when its
 * end was written (`completed`, `needs_review`, `failed`, or `started` while it runs: every
 * {@link JobRunStatus}), `noop` (a run of a completed run key: nothing to do, no attempt started),
 * `lock_lost` (it lost its app lock and wrote nothing more), `dead` (it never recorded its end:
 * the next attempt found it still `started`).
 */
export type RecordedAttemptStatus = JobRunStatus | 'noop' | 'lock_lost' | 'dead';

/** One `job_run_attempts` row, as idem reads it. Instants are ISO UTC strings. */
export interface RecordedAttempt {
  readonly id: number;
  readonly jobName: string;
  readonly runKey: string;
  /** The attempt's number (`job_runs.attempts` when it started); null for a `noop`, which started none. */
  readonly attempt: number | null;
  readonly status: RecordedAttemptStatus;
  readonly triggeredBy: string;
  readonly osUser: string | null;
  readonly host: string | null;
  readonly pid: number | null;
  /** The command line, secrets redacted. */
  readonly command: string | null;
  readonly startedAt: string;
  /** When it ended; for a `dead` attempt, its last heartbeat (its last sign of life). */
  readonly endedAt: string | null;
  /** Another process that wrote the end (`worker …`, `idem review --mark-posted …`, `attempt N`); null: its own. */
  readonly endedBy: string | null;
  /**
   * The exit code its process ended with (where another process wrote the end, the exit code of
   * that ending); null while it runs, and for a process that died.
   */
  readonly exitCode: number | null;
  /** Why it failed (or lost its lock), secrets redacted. */
  readonly error: string | null;
  /** Per-stage counts, as `job_runs.counts` held them at its end. */
  readonly counts: Record<string, unknown> | null;
}
