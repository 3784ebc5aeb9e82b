/**
 * How a command ended, in the scheduler's terms. Every command maps its ending to one outcome,
 * and {@link exitCodeOf} is the only place that turns an outcome into an exit code (the table in
 * docs/operating.md, "Exit codes"):
 *
 * | outcome        | exit | meaning                                                                  |
 * |----------------|------|--------------------------------------------------------------------------|
 * | `completed`    | 0    | done: the run key is completed (by this process, or a post worker), or a |
 * |                |      | command that runs nothing (status, migrate, …) did what it was asked     |
 * | `noop`         | 0    | the run key was already completed: nothing to do                         |
 * | `skipped`      | 0    | no source file, and the pipeline declares `missing: 'skip'`              |
 * | `planned`      | 0    | a dry run printed its plan                                               |
 * | `idle`         | 0    | `idem work`: the run never reached its post stage within the wait        |
 * | `failed`       | 1    | the run failed (bad source, a bug), a proof found a failed check, or an  |
 * |                |      | unexpected error; a plain rerun resumes                                  |
 * | `usage`        | 2    | usage or configuration error: bad flag, unknown pipeline, bad setting    |
 * | `needs-review` | 3    | a person must act: ledger items in `review`, or terminal (4xx) failures  |
 * |                |      | (or the delete guard held a snapshot, or a completed date's file changed) |
 * | `duplicates`   | 3    | a person must act: rows of a table share a key (`idem duplicates`, or    |
 * |                |      | `idem migrate --make` adopting an existing table)                        |
 * | `disk-full`    | 3    | a person must act: the database's disk, or the temporary directory of a  |
 * |                |      | sort, is full                                                            |
 * | `lock-held`    | 75   | retry later: the pipeline's app lock is held by another run              |
 * | `unavailable`  | 75   | retry later: a destination or the database stayed unavailable (job_runs  |
 * |                |      | `unavailable` when only transient failures are left after a post stage)  |
 * | `source-changed` | 75 | retry later: the source file changed while the run read it               |
 * | `stopped`      | 75   | retry later: a stop signal (SIGTERM, SIGINT, SIGHUP) stopped it; a plain |
 * |                |      | rerun resumes (a second signal, or the grace's end, stops it at once)    |
 *
 * 75 is `EX_TEMPFAIL` from BSD's sysexits.h ("temporary failure … the user is invited to retry
 * the operation later").
 */
export type Outcome =
  | 'completed'
  | 'noop'
  | 'skipped'
  | 'planned'
  | 'idle'
  | 'failed'
  | 'usage'
  | 'needs-review'
  | 'duplicates'
  | 'lock-held'
  | 'unavailable'
  | 'source-changed'
  | 'disk-full'

  | 'stopped';

/** The exit codes idem uses, by what they tell a scheduler. */
export const EXIT_CODES = {
  ok: 0,
  failed: 1,
  usage: 2,
  needsOperator: 3,
  retryLater: 75,
} as const;

/** One of {@link EXIT_CODES}. */
export type ExitCode = (typeof EXIT_CODES)[keyof typeof EXIT_CODES];

const OUTCOME_EXIT_CODES: Readonly<Record<Outcome, ExitCode>> = Object.freeze({
  completed: EXIT_CODES.ok,
  noop: EXIT_CODES.ok,
  skipped: EXIT_CODES.ok,
  planned: EXIT_CODES.ok,
  idle: EXIT_CODES.ok,
  failed: EXIT_CODES.failed,
  usage: EXIT_CODES.usage,
  'needs-review': EXIT_CODES.needsOperator,
  duplicates: EXIT_CODES.needsOperator,
  'lock-held': EXIT_CODES.retryLater,
  unavailable: EXIT_CODES.retryLater,
  'source-changed': EXIT_CODES.retryLater,
  'disk-full': EXIT_CODES.needsOperator,
  stopped: EXIT_CODES.retryLater,
});

/** The exit code of an outcome (see {@link Outcome}). */
export function exitCodeOf(outcome: Outcome): ExitCode {
  return OUTCOME_EXIT_CODES[outcome];
}

