import type { Queryable } from '../db/queryable.ts';
import { column } from '../column/column-type.ts';

const INSTANT = column.instant();
const NULLABLE_INSTANT = column.instant({ nullable: true });

/** A pipeline's `source_marks` row: the high-water mark of its incremental source. */
export interface SourceMark {
  /** What the last completed run read up to; null: no run has completed, the next reads everything. */
  readonly mark: string | null;
  /** The run key whose completion set `mark`. */
  readonly runKey: string | null;
  /** When `mark` was set (ISO 8601). */
  readonly markedAt: string | null;
  /** What the run in progress (`pendingRunKey`) read up to, to become `mark` when it completes. */
  readonly pendingMark: string | null;
  readonly pendingRunKey: string | null;
}

interface SourceMarkRow {
  mark: string | null;
  run_key: string | null;
  marked_at: unknown;
  pending_mark: string | null;
  pending_run_key: string | null;
}

/** The `source_marks` row of a pipeline, if it has one (an incremental source that has run). */
export async function findSourceMark(db: Queryable, jobName: string): Promise<SourceMark | undefined> {
  const row = (await db.knex('source_marks').where({ job_name: jobName }).first()) as SourceMarkRow | undefined;
  if (!row) return undefined;
  return {
    mark: row.mark,
    runKey: row.run_key,
    markedAt: db.adapter.fromDriverValue(NULLABLE_INSTANT, row.marked_at) as string | null,
    pendingMark: row.pending_mark,
    pendingRunKey: row.pending_run_key,
  };
}

/**
 * Records what a run read up to (null: nothing, the mark stays where it is), replacing whatever
 * an earlier attempt or run recorded. It becomes the mark only when this run key completes (see
 * {@link moveSourceMark}). Call it only under the pipeline's app lock.
 */
export async function setPendingSourceMark(db: Queryable, args: { jobName: string; runKey: string; mark: string | null; now: string }): Promise<void> {
  const now = db.adapter.toDriverValue(INSTANT, args.now);
  const pending = { pending_mark: args.mark, pending_run_key: args.mark === null ? null : args.runKey, updated_at: now };
  const updated = await db.knex('source_marks').where({ job_name: args.jobName }).update(pending);
  if (updated === 0) await db.knex('source_marks').insert({ job_name: args.jobName, mark: null, run_key: null, marked_at: null, ...pending });
}

/**
 * Moves a pipeline's mark to what `runKey` read up to, if that run key recorded the pending mark
 * (a later run of another key may have replaced it: then that run's completion moves it). Call
 * it in the transaction that marks the run key `completed`, so the mark moves exactly when the
 * run completes, and never for a run that does not.
 */
export async function moveSourceMark(db: Queryable, args: { jobName: string; runKey: string; now: string }): Promise<void> {
  const now = db.adapter.toDriverValue(INSTANT, args.now);
  // `mark` and `run_key` are assigned before the pending columns are emptied: MySQL evaluates
  // SET assignments left to right, each seeing the ones before it.
  await db.knex('source_marks')
    .where({ job_name: args.jobName, pending_run_key: args.runKey })
    .update({ mark: db.knex.ref('pending_mark'), run_key: db.knex.ref('pending_run_key'), marked_at: now, pending_mark: null, pending_run_key: null, updated_at: now });
}
