import { randomUUID } from 'node:crypto';
import { DateTime } from 'luxon';
import { UsageError } from '../errors/usage-error.ts';
import { createHeartbeat } from '../heartbeat/heartbeat.ts';
import { businessDatesBetween, resolveBusinessDate } from '../runs/business-date.ts';
import { lastCompletedDate } from '../runs/job-runs-queries.ts';
import type { RunContext } from './run-context.ts';
import { runDates, type RunDatesResult } from './run-dates.ts';
import type { RunRequest } from './run-request.ts';

/**
 * `idem run --catch-up`: every business date from the day after the last completed one up to
 * yesterday in the pipeline's time zone (at `now`), in order (see `runDates`). Nothing to catch
 * up is logged, and still pings the monitor's success: a healthy night.
 * @throws UsageError when the pipeline has no completed business date to start after.
 */
export async function runCatchUp(ctx: RunContext, request: Omit<RunRequest, 'runKey'>, now: Date): Promise<RunDatesResult> {
  const { pipeline } = request;
  const last = await lastCompletedDate(ctx.db, pipeline.name);
  if (last === undefined) throw new UsageError(`--catch-up needs a completed business date to start after; run one with --date first, or use idem backfill`);
  const yesterday = resolveBusinessDate('yesterday', pipeline.timeZone, now);
  const first = DateTime.fromISO(last, { zone: 'UTC' }).plus({ days: 1 }).toISODate()!;
  const dates = first > yesterday ? [] : businessDatesBetween(first, yesterday);
  ctx.logger.info(
    { pipeline: pipeline.name, stage: 'catch-up', lastCompleted: last, dates: dates.length, from: dates[0], to: dates.at(-1) },
    dates.length ? `catching up ${dates.length} date(s) after ${last}` : `nothing to catch up: the last completed date is ${last}, yesterday in ${pipeline.timeZone} is ${yesterday}`,
  );
  if (dates.length === 0 && request.heartbeatUrl) await createHeartbeat(request.heartbeatUrl, { runId: randomUUID(), log: ctx.logger }).success();
  return runDates(ctx, request, dates);
}
