import type { Database } from '../db/database.ts';
import { column } from '../column/column-type.ts';
import type { JobRun, JobRunAttempt, JobRunStatus } from './job-run.ts';
import { moveSourceMark } from './source-marks-queries.ts';
import { redactSecrets } from '../text/redact-secrets.ts';

const INSTANT = column.instant();
const NULLABLE_INSTANT = column.instant({ nullable: true });

interface JobRunRow {
  id: number | string;
  job_name: string;
  run_key: string;
  status: JobRunStatus;
  attempts: number;
  triggered_by: string;
  started_at: unknown;
  finished_at: unknown;
  heartbeat_at: unknown;
  counts: string | null;
  error: string | null;
  stage: string | null;
  died_attempts: number | string | null;
}

function toJobRun(db: Database, row: JobRunRow): JobRun {
  const instant = (value: unknown): string | null => db.adapter.fromDriverValue(NULLABLE_INSTANT, value) as string | null;
  return {
    id: Number(row.id),
    jobName: row.job_name,
    runKey: row.run_key,
    status: row.status,
    attempts: row.attempts,
    triggeredBy: row.triggered_by,
    startedAt: instant(row.started_at)!,
    finishedAt: instant(row.finished_at),
    heartbeatAt: instant(row.heartbeat_at),
    counts: row.counts === null ? null : (JSON.parse(row.counts) as Record<string, unknown>),
    error: row.error,
    stage: row.stage ?? null,
    diedAttempts: Number(row.died_attempts ?? 0),
  };
}

/** The `job_runs` row of one job and run key, if any. */
export async function findJobRun(db: Database, jobName: string, runKey: string): Promise<JobRun | undefined> {
  const row = await db.knex<JobRunRow>('job_runs').where({ job_name: jobName, run_key: runKey }).first();
  return row ? toJobRun(db, row) : undefined;
}

/**
 * Marks a run key `started` before any work, reusing the row of an earlier attempt (attempts + 1)
 * so a rerun never meets a duplicate key. Call it only under the pipeline's app lock. An earlier
 * attempt still `started` then never recorded its end (this process holds the lock it held): it
 * is counted in `died_attempts`, and returned as `died`.
 * @returns the new attempt's row, and the earlier attempt's row as it was when that one died.
 */
export async function startJobRun(
  db: Database,
  args: { jobName: string; runKey: string; triggeredBy: string; now: string },
): Promise<{ jobRun: JobRun; died: JobRun | undefined }> {
  const now = db.adapter.toDriverValue(INSTANT, args.now);
  const key = { job_name: args.jobName, run_key: args.runKey };
  const earlier = await findJobRun(db, args.jobName, args.runKey);
  const died = earlier?.status === 'started' ? earlier : undefined;
  const fields = { status: 'started', stage: null, triggered_by: args.triggeredBy, started_at: now, finished_at: null, heartbeat_at: now, error: null, updated_at: now };
  const updated = await db.knex('job_runs')
    .where(key)
    .update({ ...fields, attempts: db.knex.raw('attempts + 1'), ...(died ? { died_attempts: db.knex.raw('died_attempts + 1') } : {}) });
  if (updated === 0) await db.knex('job_runs').insert({ ...key, ...fields, attempts: 1, counts: null, created_at: now });
  return { jobRun: (await findJobRun(db, args.jobName, args.runKey))!, died };
}

/** The `job_runs` row of `attempt`, while that attempt is the row's latest and still `started`. */
function liveAttempt(attempt: JobRunAttempt): Record<string, unknown> {
  return { id: attempt.id, attempts: attempt.attempt, status: 'started' };
}

/**
 * Records the end of an attempt: its status, counts and, for a failure, the error. Only while the
 * attempt is the row's latest and still `started`: once a process has written its end (a post
 * worker may complete a run), or a newer attempt has started, nothing overwrites it.
 * @returns whether this call wrote the end.
 */
export function finishJobRun(
  db: Database,
  attempt: JobRunAttempt,
  args: { status: JobRunStatus; counts: Record<string, unknown>; error?: string; now: string },
): Promise<boolean> {
  return endJobRun(db, liveAttempt(attempt), args);
}

/** Writes an attempt's end where `where` (its id and state) still holds. @returns whether it did. */
async function endJobRun(
  db: Database,
  where: Record<string, unknown>,
  args: { status: JobRunStatus; counts: Record<string, unknown>; error?: string; now: string },
): Promise<boolean> {
  const now = db.adapter.toDriverValue(INSTANT, args.now);
  const updated = await db.knex('job_runs').where(where).update({
    status: args.status,
    counts: JSON.stringify(args.counts),
    error: args.error === undefined ? null : redactSecrets(args.error),
    finished_at: now,
    heartbeat_at: now,
    updated_at: now,
  });
  return updated === 1;
}

/**
 * Marks a started attempt as posting: enqueueing is done, so post workers may join, and the
 * counts so far (extract, stage, upsert) are recorded for whichever process completes the run.
 */
export async function enterPostStage(db: Database, attempt: JobRunAttempt, args: { counts: Record<string, unknown>; now: string }): Promise<void> {
  await db.knex('job_runs')
    .where(liveAttempt(attempt))
    .update({ stage: 'post', counts: JSON.stringify(args.counts), updated_at: db.adapter.toDriverValue(INSTANT, args.now) });
}

/**
 * Writes the end of a run whose post stage is done (`completed`, `unavailable` or `needs_review`), once: only
 * while the attempt is the row's latest, `started` and posting, so when several processes share
 * the post stage exactly one of them writes it and the others see it done. This is where every
 * run becomes `completed` (with or without destinations): an incremental source's mark moves in
 * the same transaction (see `moveSourceMark`), so it moves exactly when the run completes.
 * @returns whether this call wrote it.
 */
export function completePostedJobRun(
  db: Database,
  attempt: JobRunAttempt,
  args: { status: Extract<JobRunStatus, 'completed' | 'unavailable' | 'needs_review'>; counts: Record<string, unknown>; now: string },
): Promise<boolean> {
  const where = { ...liveAttempt(attempt), stage: 'post' };
  if (args.status !== 'completed') return endJobRun(db, where, args);
  return db.knex.transaction(async (trx) => {
    if (!(await endJobRun({ ...db, knex: trx }, where, args))) return false;
    const run = (await trx('job_runs').select('job_name', 'run_key').where({ id: attempt.id }).first()) as { job_name: string; run_key: string };
    await moveSourceMark({ knex: trx, adapter: db.adapter }, { jobName: run.job_name, runKey: run.run_key, now: args.now });
    return true;
  });
}

/**
 * Completes a run key left `needs_review` (or `unavailable`) once an operator has resolved its
 * last open ledger item (`idem review --mark-posted`): `completed`, finished now; its counts stay
 * as the run wrote them; its source mark moves.
 * @returns whether this call completed it (false: the run key is in neither status).
 */
export async function completeReviewedJobRun(db: Database, args: { jobName: string; runKey: string; now: string }): Promise<boolean> {
  const now = db.adapter.toDriverValue(INSTANT, args.now);
  return db.knex.transaction(async (trx) => {
    const updated = await trx('job_runs')
      .where({ job_name: args.jobName, run_key: args.runKey })
      .whereIn('status', ['needs_review', 'unavailable'])
      .update({ status: 'completed', updated_at: now, finished_at: now });
    // With the run, its source mark (see `completePostedJobRun`).
    if (updated === 1) await moveSourceMark({ knex: trx, adapter: db.adapter }, args);
    return updated === 1;
  });
}

/**
 * The run history, newest run key first within each job: every job, one job, or one run key.
 * @param filter.limit the most rows. @defaultValue 50
 * @param filter.offset rows skipped first, for a page after the first. @defaultValue 0
 */
export async function listJobRuns(db: Database, filter: { jobName?: string; runKey?: string; limit?: number; offset?: number } = {}): Promise<JobRun[]> {
  const query = db.knex<JobRunRow>('job_runs').orderBy([{ column: 'job_name' }, { column: 'run_key', order: 'desc' }]).limit(filter.limit ?? 50);
  if (filter.offset) query.offset(filter.offset);
  if (filter.jobName !== undefined) query.where({ job_name: filter.jobName });
  if (filter.runKey !== undefined) query.where({ run_key: filter.runKey });
  return ((await query) as JobRunRow[]).map((row) => toJobRun(db, row));
}

/**
 * A job's business-date run keys from `from` to `to` (`YYYY-MM-DD`, both included), oldest
 * first; file run keys are left out. At most one row per date, so a window bounds the rows.
 */
export async function listJobRunsBetween(db: Database, args: { jobName: string; from: string; to: string }): Promise<JobRun[]> {
  const rows = (await db.knex<JobRunRow>('job_runs')
    .where({ job_name: args.jobName })
    .whereBetween('run_key', [args.from, args.to])
    .whereNot('run_key', 'like', 'file:%')
    .orderBy('run_key')) as JobRunRow[];
  return rows.map((row) => toJobRun(db, row));
}

/** The runs whose latest attempt is `started` (running, or dead: see `runLiveness`), every job, oldest first. */
export async function listStartedJobRuns(db: Database): Promise<JobRun[]> {
  const rows = (await db.knex<JobRunRow>('job_runs').where({ status: 'started' }).orderBy('started_at')) as JobRunRow[];
  return rows.map((row) => toJobRun(db, row));
}

/** The oldest and newest business-date run keys of a job in any status (file run keys are ignored); undefined without any. */
export async function runDateRange(db: Database, jobName: string): Promise<{ first: string; last: string } | undefined> {
  const row = (await db.knex('job_runs')
    .where({ job_name: jobName })
    .whereNot('run_key', 'like', 'file:%')
    .min({ first: 'run_key' })
    .max({ last: 'run_key' })
    .first()) as { first: string | null; last: string | null } | undefined;
  return row?.first && row.last ? { first: row.first, last: row.last } : undefined;
}

/** The newest `completed` business-date run key of a job, if any (file run keys are ignored). */
export async function lastCompletedDate(db: Database, jobName: string): Promise<string | undefined> {
  const row = (await db.knex('job_runs')
    .where({ job_name: jobName, status: 'completed' })
    .whereNot('run_key', 'like', 'file:%')
    .max({ run_key: 'run_key' })
    .first()) as { run_key: string | null } | undefined;
  return row?.run_key ?? undefined;
}

/** Refreshes `heartbeat_at` of a running attempt, while it is the row's latest and `started`. */
export async function touchJobRunHeartbeat(db: Database, attempt: JobRunAttempt, nowIso: string): Promise<void> {
  await db.knex('job_runs').where(liveAttempt(attempt)).update({ heartbeat_at: db.adapter.toDriverValue(INSTANT, nowIso) });
}

/** The names of the jobs with runs recorded, in name order. */
export async function listJobNames(db: Database): Promise<string[]> {
  return ((await db.knex('job_runs').distinct('job_name').orderBy('job_name')) as { job_name: string }[]).map((r) => r.job_name);
}
