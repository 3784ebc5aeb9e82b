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
   * The run is finished: `status` as `job_runs` holds it now, `wroteIt` when this call wrote it,
   * and the `failed` / `review` items when it needs an operator; `transient` of the `failed` ones
   * failed transiently (the destination stayed unavailable: a rerun retries them).
   */
  | { readonly done: true; readonly status: JobRunStatus; readonly wroteIt: boolean; readonly ledger: { failed: number; review: number; transient: number } };

/**
 * How a run whose post stage is done ends (the run's and `idem work`'s outcome): `completed`;
 * `unavailable` when the only open items failed transiently (the destination stayed unavailable
 * through every retry: a rerun later retries them); else `needs-review`.
 */
export function postedRunOutcome(status: JobRunStatus, ledger: { failed: number; review: number; transient: number }): Extract<Outcome, 'completed' | 'needs-review' | 'unavailable'> {
  if (status === 'completed') return 'completed';
  return ledger.review === 0 && ledger.failed === ledger.transient ? 'unavailable' : 'needs-review';
}

/**
 * Completes a run whose post stage every process has finished: when no item of the run key is
 * `pending` or `sending` any more, writes `job_runs` `completed` (every item posted, superseded
 * or found) or `needs_review` (items `failed` or in `review`), with the run key's items by status
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
  const status = ledger.failed + ledger.review > 0 ? 'needs_review' : 'completed';
  // Every process's share together: `counts.post` of one process is its own share only.
  const counts = { ...args.counts, ledger: items };
  const exitCode = exitCodeOf(postedRunOutcome(status, ledger));
  const wroteIt = await completePostedJobRun(db, args.attempt, { status, counts, exitCode, ...(args.endedBy ? { endedBy: args.endedBy } : {}), now: args.nowIso });
  if (wroteIt) return { done: true, status, wroteIt, ledger };
  const jobRun = await findJobRun(db, args.jobName, args.runKey);
  return { done: true, status: jobRun?.status ?? status, wroteIt: false, ledger };
}
