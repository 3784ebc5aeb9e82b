import type { Database } from '../db/database.ts';
import { countLedgerItems, countTransientFailures } from '../ledger/ledger-reports.ts';
import type { JobRunAttempt, JobRunStatus } from '../runs/job-run.ts';
import { completePostedJobRun, findJobRun } from '../runs/job-runs-queries.ts';
import { exitCodeOf, type Outcome } from '../outcome/outcome.ts';

/** What {@link finishPostedRun} found. */
export type PostedRunState =
  /** Items are still `pending` or `sending` (unclaimed, or under a live claim of some process). */
  | { readonly done: false; readonly open: number }
  /**
   * The run is finished: `status` as `job_runs` holds it now (see `postedRunStatus`), `wroteIt`
   * when this call wrote it, and the `failed` / `review` items; `transient` of the `failed` ones
   * failed transiently (the destination stayed unavailable: a rerun retries them).
   */
  | { readonly done: true; readonly status: JobRunStatus; readonly wroteIt: boolean; readonly ledger: { failed: number; review: number; transient: number } };

/**
 * How a run whose post stage is over ends, by its items: `completed` when none is `failed` or in
 * `review`; `unavailable` (retry later, exit 75) when the only ones are `failed` transiently: the
 * destination stayed unavailable through every retry (5xx, timeouts, 429), and a rerun sends them
 * again; `needs_review` (exit 3) when any is in `review` or failed terminally: a person must act,
 * and a rerun alone would not finish it. `job_runs`, `idem status` and the exit code all say it.
 */
export function postedRunStatus(ledger: { failed: number; review: number; transient: number }): Extract<JobRunStatus, 'completed' | 'unavailable' | 'needs_review'> {
  if (ledger.failed + ledger.review === 0) return 'completed';
  return ledger.review === 0 && ledger.failed === ledger.transient ? 'unavailable' : 'needs_review';

}

/** The outcome of a run whose post stage is over, by the status `job_runs` holds (see {@link postedRunStatus}): the exit code says what `job_runs` says. */
export function postedRunOutcome(status: JobRunStatus): Extract<Outcome, 'completed' | 'needs-review' | 'unavailable'> {
  return status === 'completed' ? 'completed' : status === 'unavailable' ? 'unavailable' : 'needs-review';
}

/**
 * Completes a run whose post stage every process has finished: when no item of the run key is
 * `pending` or `sending` any more, writes `job_runs` `completed`, `unavailable` or `needs_review`
 * (see {@link postedRunStatus}), with the run key's items by status
 * in `counts.ledger` (all processes together), with a
 * conditional update (see `completePostedJobRun`), so that of all the processes sharing the post
 * stage exactly one writes it. A process that finds items still open waits and calls again.
 *
 * @param args.counts the counts to record; `ledger` (items by status) is added.
 * @param args.endedBy the process writing it when it is not the attempt's own (an `idem work` worker's name).
 * @returns the state found; `done: true` also when another process wrote the end first.
 */
export async function finishPostedRun(
  db: Database,
  args: { jobName: string; runKey: string; attempt: JobRunAttempt; counts: Record<string, unknown>; endedBy?: string; nowIso: string },
): Promise<PostedRunState> {
  const items = await countLedgerItems(db, { jobName: args.jobName, runKey: args.runKey });
  const open = (items.pending ?? 0) + (items.sending ?? 0);
  if (open > 0) return { done: false, open };
  const failed = items.failed ?? 0;
  const ledger = { failed, review: items.review ?? 0, transient: failed > 0 ? await countTransientFailures(db, args) : 0 };
  const status = postedRunStatus(ledger);
  // Every process's share together: `counts.post` of one process is its own share only.
  const counts = { ...args.counts, ledger: items };
  const exitCode = exitCodeOf(postedRunOutcome(status));
  const wroteIt = await completePostedJobRun(db, args.attempt, { status, counts, exitCode, ...(args.endedBy ? { endedBy: args.endedBy } : {}), now: args.nowIso });
  if (wroteIt) return { done: true, status, wroteIt, ledger };
  const jobRun = await findJobRun(db, args.jobName, args.runKey);
  return { done: true, status: jobRun?.status ?? status, wroteIt: false, ledger };
}
