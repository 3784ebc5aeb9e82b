import { exitCodeOf } from '../outcome/outcome.ts';
import { recordNoopRun } from '../runs/job-runs-queries.ts';
import { isoClock, type RunContext } from './run-context.ts';
import type { RunReport } from './run-report.ts';
import type { RunRequest } from './run-request.ts';

/**
 * Records a run of a completed run key in `job_run_attempts` (`noop`, see `recordNoopRun`), so
 * the run's history shows every time a scheduler ran it. A failure to record it is a warning: the
 * run key is completed, and the run ends as one.
 */
export async function recordNoop(ctx: RunContext, request: RunRequest, report: RunReport): Promise<void> {
  const args = { jobName: request.pipeline.name, runKey: request.runKey.value, triggeredBy: request.triggeredBy, command: request.commandLine, exitCode: exitCodeOf('noop'), now: isoClock(ctx)() };
  await recordNoopRun(ctx.db, args).catch((error: Error) => report.log.warn({ err: error }, 'could not record the no-op in job_run_attempts'));
}
