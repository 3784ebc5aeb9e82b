/**
 * A `job_runs` row's status: `started` (an attempt is working, or crashed), `completed` (every
 * side effect durable, every ledger item posted), `needs_review` (done, but ledger items are
 * `failed` or in `review`: an operator acts, a rerun retries transient failures), `failed`.
 */
export type JobRunStatus = 'started' | 'completed' | 'needs_review' | 'failed';

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
}
