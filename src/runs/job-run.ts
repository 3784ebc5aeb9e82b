import { IdemError } from '../errors/idem-error.ts';
import { StoppedError } from '../errors/stopped-error.ts';

/**
 * A `job_runs` row's status: `started` (an attempt is working, or crashed), `completed` (every
 * side effect durable, every ledger item posted), `unavailable` (done, but items failed
 * transiently, the destination unavailable through every retry, and nothing else is open: retry
 * later, a rerun sends them again; exit 75), `needs_review` (done, but ledger items are in
 * `review` or failed terminally: an operator acts; exit 3), `failed`, `stopped` (a stop signal
 * ended the attempt at a stage boundary; `error` names the signal; a rerun resumes).
 */
export type JobRunStatus = 'started' | 'completed' | 'unavailable' | 'needs_review' | 'failed' | 'stopped';

/**
 * The status that records an attempt ended by `error`: `stopped` for a `StoppedError`,
 * `needs_review` for an error that asks a person to act (the delete guard's), so `job_runs` tells
 * what the exit code (3) tells; else `failed`.
 */
export function endingStatusOf(error: Error): Extract<JobRunStatus, 'failed' | 'stopped' | 'needs_review'> {
  if (error instanceof StoppedError) return 'stopped';
  return error instanceof IdemError && error.outcome === 'needs-review' ? 'needs_review' : 'failed';
}

/** One `job_runs` row, as idem reads it. Instants are ISO UTC strings. */
export interface JobRun {
  readonly id: number;
  readonly jobName: string;
  readonly runKey: string;
  readonly status: JobRunStatus;
  readonly attempts: number;
  readonly triggeredBy: string;
  readonly startedAt: string;
  readonly finishedAt: string | null;
  readonly heartbeatAt: string | null;
  /** Per-stage counts, for example `{ extract: { rows: 3108 }, upsert: { inserted: 143 } }`. */
  readonly counts: Record<string, unknown> | null;
  readonly error: string | null;
  /**
   * `post` once the attempt has enqueued everything and posting began (post workers join then);
   * null before, and for runs from before post workers existed.
   */
  readonly stage: string | null;
  /**
   * How many attempts of this run key ended without recording their end, as the attempt after
   * each found it (still `started`, while the new attempt held the app lock): killed, their host
   * lost, or their lock lost. 0 for a run key whose every attempt recorded how it ended.
   */
  readonly diedAttempts: number;
}

/**
 * One attempt of a run key: its `job_runs` row and its number. Every write of the attempt names
 * both, so an attempt that lost its lock to a newer one never writes over the newer one's row.
 */
export interface JobRunAttempt {
  readonly id: number;
  readonly attempt: number;
}
