import type { IdemChildResult } from '../child-process/start-idem-child.ts';
import { EXIT_CODES } from '../outcome/outcome.ts';
import type { JobRunStatus } from '../runs/job-run.ts';

/** The `job_runs` status each exit code of a run that reached its end says (docs/operating.md, "Exit codes"). */
const STATUS_OF_EXIT: Readonly<Partial<Record<number, JobRunStatus>>> = {
  [EXIT_CODES.ok]: 'completed',
  [EXIT_CODES.needsOperator]: 'needs_review',
  [EXIT_CODES.retryLater]: 'unavailable',
};

/**
 * Whether a run's exit code and the `job_runs` status it left tell one story: 0 completed, 3
 * needs_review, 75 unavailable (a scheduler and `idem status` must not disagree).
 * @returns undefined when they agree (or the exit is none of those), else the disagreement in words.
 */
export function exitDisagreesWithJobRun(run: IdemChildResult, status: JobRunStatus | undefined): string | undefined {
  const expected = run.code === null ? undefined : STATUS_OF_EXIT[run.code];
  if (expected === undefined || expected === status) return undefined;
  return `exit ${run.code} but job_runs ${status ?? 'missing'} (expected ${expected})`;
}
