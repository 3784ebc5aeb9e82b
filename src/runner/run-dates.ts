import { exitCodeOf, type ExitCode, type Outcome } from '../outcome/outcome.ts';
import { dateRunKey } from '../runs/run-key.ts';
import type { RunContext } from './run-context.ts';
import { runPipeline } from './run-pipeline.ts';
import type { RunRequest } from './run-request.ts';
import type { RunResult } from './run-result.ts';

/** How a run over several business dates ended. */
export interface RunDatesResult {
  /** One result per date attempted, in order (dates after a stop are absent). */
  readonly results: readonly RunResult[];
  /**
   * The date that stopped it ends the command as it ended itself (its `exitOutcome`); otherwise
   * `needs-review` when some date needs an operator, else `completed`.
   */
  readonly outcome: Outcome;
  readonly exitCode: ExitCode;
  /** The date the run stopped at, if it stopped early. */
  readonly stoppedAt?: string;
}

/**
 * Runs each business date in order, one lock cycle per date (`idem backfill`, `--catch-up`).
 * Completed dates are no-ops and dates without a source file follow the pipeline's `missing`
 * rule; a date that fails, finds the lock held or its destination unavailable, or is stopped by a
 * signal, stops the sequence, and says which date.
 */
export async function runDates(
  ctx: RunContext,
  request: Omit<RunRequest, 'runKey'>,
  dates: readonly string[],
): Promise<RunDatesResult> {
  const log = ctx.logger.child({ pipeline: request.pipeline.name, stage: 'dates' });
  const results: RunResult[] = [];
  for (const date of dates) {
    const result = await runPipeline(ctx, { ...request, runKey: dateRunKey(date) });
    results.push(result);
    if (result.outcome === 'failed' || result.outcome === 'lock-held' || result.outcome === 'unavailable' || result.outcome === 'stopped') {
      log.error({ stoppedAt: date, exitCode: result.exitCode }, `stopped at ${date}: ${result.error?.message ?? result.outcome}; the dates after it did not run`);
      return { results, outcome: result.exitOutcome, exitCode: result.exitCode, stoppedAt: date };
    }
  }
  const tally = (outcome: RunResult['outcome']): number => results.filter((r) => r.outcome === outcome).length;
  const counts = { dates: dates.length, completed: tally('completed'), alreadyCompleted: tally('noop'), noSourceFile: tally('skipped'), needsReview: tally('needs-review') };
  log.info(counts, `${counts.completed} date(s) run, ${counts.alreadyCompleted} already completed (skipped), ${counts.noSourceFile} without a source file (skipped)`);
  const outcome = counts.needsReview > 0 ? 'needs-review' : 'completed';
  return { results, outcome, exitCode: exitCodeOf(outcome) };
}
