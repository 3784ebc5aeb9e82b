import { DateTime } from 'luxon';
import type { JobRun } from '../runs/job-run.ts';

/**
 * What a business date's square on the calendar says: its run `completed` (and changed
 * something), `noop` (completed, changed nothing), `failed`, `stopped` (by a stop signal), `unavailable` (retry later), `needs_review`, `running`, `dead`
 * (started, its process gone: see `runLiveness`), `missing` (a past date after the pipeline's
 * first run key with no run), `none` (before its first run key) or `not_yet` (today, not run yet).
 */
export type CalendarState = 'completed' | 'noop' | 'failed' | 'stopped' | 'unavailable' | 'needs_review' | 'running' | 'dead' | 'missing' | 'none' | 'not_yet';

/** Each state's words, for titles and the legend. */
export const CALENDAR_STATE_LABELS: Readonly<Record<CalendarState, string>> = {
  completed: 'completed',
  noop: 'completed, nothing changed (no-op)',
  failed: 'failed',
  stopped: 'stopped (by a signal; a rerun resumes)',
  unavailable: 'destination unavailable: retry later',
  needs_review: 'needs review',
  running: 'running',
  dead: 'dead (started, process gone)',
  missing: 'missing (no run)',
  none: 'before the first run',
  not_yet: 'today, not run yet',
};

/** One square of the calendar: a business date, its state, and its run when there is one. */
export interface CalendarDay {
  readonly date: string;
  readonly state: CalendarState;
  readonly run?: JobRun;
}

/** The number of business dates a calendar shows. */
export const CALENDAR_DAYS = 90;

/** Whether a completed run changed nothing: no row inserted, updated or deleted, nothing sent. */
export function changedNothing(run: JobRun): boolean {
  const counts = (run.counts ?? {}) as Record<string, Record<string, unknown> | undefined>;
  const upsert = counts.upsert;
  if (upsert === undefined) return false;
  const changed = ['inserted', 'updated', 'deleted'].some((k) => Number(upsert[k] ?? 0) > 0);
  const sent = Object.values((counts.post ?? {}) as Record<string, Record<string, unknown>>).some((p) => Number(p.sent ?? 0) > 0);
  return !changed && !sent;
}

/** The first date of the {@link CALENDAR_DAYS}-day window that ends on `end` (`YYYY-MM-DD`). */
export function calendarStart(end: string): string {
  return DateTime.fromISO(end, { zone: 'UTC' }).minus({ days: CALENDAR_DAYS - 1 }).toISODate()!;
}

/** `date` moved by `days` (negative: earlier), `YYYY-MM-DD`. */
export function shiftDate(date: string, days: number): string {
  return DateTime.fromISO(date, { zone: 'UTC' }).plus({ days }).toISODate()!;
}

/**
 * The calendar of a pipeline's run keys from `calendarStart(end)` to `end`, oldest first.
 * @param args.runs the business-date runs in that window (any order).
 * @param args.dead the run keys of `started` runs found dead; other `started` runs are running.
 * @param args.firstRunDate the pipeline's oldest business-date run key ever: dates before it are `none`.
 * @param args.today today in the pipeline's time zone: a later date is `none`, today without a run `not_yet`.
 */
export function runCalendar(args: { runs: readonly JobRun[]; end: string; dead: ReadonlySet<string>; firstRunDate: string | undefined; today: string }): CalendarDay[] {
  const byDate = new Map(args.runs.map((run) => [run.runKey, run]));
  const days: CalendarDay[] = [];
  for (let date = calendarStart(args.end); date <= args.end; date = shiftDate(date, 1)) {
    const run = byDate.get(date);
    if (run === undefined) {
      const state: CalendarState = args.firstRunDate === undefined || date < args.firstRunDate || date > args.today ? 'none' : date === args.today ? 'not_yet' : 'missing';
      days.push({ date, state });
      continue;
    }
    const state: CalendarState =
      run.status === 'started' ? (args.dead.has(run.runKey) ? 'dead' : 'running') : run.status === 'completed' && changedNothing(run) ? 'noop' : run.status;
    days.push({ date, state, run });
  }
  return days;
}
