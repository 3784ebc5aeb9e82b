import type { IdemChildResult } from '../child-process/start-idem-child.ts';
import { EXIT_CODES } from '../outcome/outcome.ts';
import type { JobRunStatus } from '../runs/job-run.ts';

/**
 * The `job_runs` statuses each exit code of a run that reached its end may leave (docs/operating.md,
 * "Exit codes"). 75 says retry later: `unavailable` after a post stage, `stopped` by a signal.
 */
const STATUSES_OF_EXIT: Readonly<Partial<Record<number, readonly JobRunStatus[]>>> = {
  [EXIT_CODES.ok]: ['completed'],
  [EXIT_CODES.needsOperator]: ['needs_review'],
  [EXIT_CODES.retryLater]: ['unavailable', 'stopped'],
};

/**
 * The errors (their `code`) with which the database cut a run that exits 75: `job_runs` says
 * `failed` with the reason when a new statement could record it, else it stays `started` (DEAD
 * in `idem status`).
 */
const CUT_BY_THE_DATABASE = new Set(['CONNECTION_LOST', 'DATABASE_BUSY']);

/**
 * Whether a run's exit code and the `job_runs` status it left tell one story: 0 completed, 3
 * needs_review, 75 unavailable or stopped, or failed (or not recorded) when the database cut the
 * run (a scheduler and `idem status` must not disagree).
 * @returns undefined when they agree (or the exit is none of those), else the disagreement in words.
 */
export function exitDisagreesWithJobRun(run: IdemChildResult, status: JobRunStatus | undefined): string | undefined {
  const statuses = run.code === null ? undefined : STATUSES_OF_EXIT[run.code];
  if (statuses === undefined) return undefined;
  const cut = run.code === EXIT_CODES.retryLater && CUT_BY_THE_DATABASE.has(String((run.summary?.err as { code?: unknown } | undefined)?.code));
  const expected: readonly JobRunStatus[] = cut ? [...statuses, 'failed', 'started'] : statuses;
  if (status !== undefined && expected.includes(status)) return undefined;
  return `exit ${run.code} but job_runs ${status ?? 'missing'} (expected ${expected.join(' or ')})`;
}
