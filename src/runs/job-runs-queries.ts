import type { Database } from '../db/database.ts';
import type { Queryable } from '../db/queryable.ts';
import { attemptTrigger } from './attempt-trigger.ts';
import { endRecordedAttempt, insertRecordedAttempt } from './job-run-attempts-queries.ts';
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

function toJobRun(db: Queryable, row: JobRunRow): JobRun {
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
export async function findJobRun(db: Queryable, jobName: string, runKey: string): Promise<JobRun | undefined> {
  const row = await db.knex<JobRunRow>('job_runs').where({ job_name: jobName, run_key: runKey }).first();
  return row ? toJobRun(db, row) : undefined;
}

/**
 * Marks a run key `started` before any work, reusing the row of an earlier attempt (attempts + 1)
 * so a rerun never meets a duplicate key, and records the attempt in `job_run_attempts` (who
 * started it: see `AttemptTrigger`), in one transaction. Call it only under the pipeline's app
 * lock. An earlier attempt still `started` then never recorded its end (this process holds the
 * lock it held): it is counted in `died_attempts`, its recorded attempt becomes `dead` (ended at
 * its last heartbeat, `ended_by` this attempt), and it is returned as `died`.
 * @param args.command the command line (see `AttemptTrigger.command`). @defaultValue none
 * @returns the new attempt's row, and the earlier attempt's row as it was when that one died.
 */
export async function startJobRun(
  db: Queryable,
  args: { jobName: string; runKey: string; triggeredBy: string; command?: string | undefined; now: string },
): Promise<{ jobRun: JobRun; died: JobRun | undefined }> {
  const now = db.adapter.toDriverValue(INSTANT, args.now);
  const key = { job_name: args.jobName, run_key: args.runKey };
  const earlier = await findJobRun(db, args.jobName, args.runKey);
  const died = earlier?.status === 'started' ? earlier : undefined;
  // Its first statement writes: a SQLite transaction that read first could not take the write lock
  // once another process (a post worker) had written meanwhile.
  return db.knex.transaction(async (trx) => {
    const q = { knex: trx, adapter: db.adapter };
    const fields = { status: 'started', stage: null, triggered_by: args.triggeredBy, started_at: now, finished_at: null, heartbeat_at: now, error: null, updated_at: now };
    const updated = await trx('job_runs')
      .where(key)
      .update({ ...fields, attempts: trx.raw('attempts + 1'), ...(died ? { died_attempts: trx.raw('died_attempts + 1') } : {}) });
    if (updated === 0) await trx('job_runs').insert({ ...key, ...fields, attempts: 1, counts: null, created_at: now });
    const jobRun = (await findJobRun(q, args.jobName, args.runKey))!;
    if (died) {
      const lastSign = db.adapter.toDriverValue(INSTANT, died.heartbeatAt ?? died.startedAt);
      await endRecordedAttempt(q, { id: died.id, attempt: died.attempts }, { status: 'dead', at: lastSign, endedBy: `attempt ${jobRun.attempts}` });
    }
    const trigger = attemptTrigger(args.triggeredBy, args.command);
    await insertRecordedAttempt(q, { jobRunId: jobRun.id, jobName: args.jobName, runKey: args.runKey, attempt: jobRun.attempts, trigger, startedAt: now });
    return { jobRun, died };
  });
}

/**
 * Records a run of a `completed` run key that found nothing to do (`noop`, exit 0) as a row of
 * `job_run_attempts` without an attempt number: it started no attempt and `job_runs` is
 * unchanged. Needs no app lock (it only adds a row).
 * @returns whether it was recorded (false: the run key has no `job_runs` row).
 */
export async function recordNoopRun(
  db: Queryable,
  args: { jobName: string; runKey: string; triggeredBy: string; command?: string | undefined; exitCode: number; now: string },
): Promise<boolean> {
  const run = await findJobRun(db, args.jobName, args.runKey);
  if (run === undefined) return false;
  const now = db.adapter.toDriverValue(INSTANT, args.now);
  const trigger = attemptTrigger(args.triggeredBy, args.command);
  await insertRecordedAttempt(db, { jobRunId: run.id, jobName: args.jobName, runKey: args.runKey, attempt: null, trigger, startedAt: now, end: { status: 'noop', at: now, exitCode: args.exitCode } });
  return true;
}

/** The `job_runs` row of `attempt`, while that attempt is the row's latest and still `started`. */
function liveAttempt(attempt: JobRunAttempt): Record<string, unknown> {
  return { id: attempt.id, attempts: attempt.attempt, status: 'started' };
}

/** How an attempt ended, for `job_runs` and its recorded attempt. */
export interface JobRunEnd {
  readonly status: JobRunStatus;
  readonly counts: Record<string, unknown>;
  /** For a failure: why (redacted when written). */
  readonly error?: string;
  /** The exit code the attempt's process ends with (src/outcome/outcome.ts). @defaultValue none recorded */
  readonly exitCode?: number;
  /** Another process that writes the end (an `idem work` worker's name). @defaultValue the attempt's own process */
  readonly endedBy?: string;
  readonly now: string;
}

/**
 * Records the end of an attempt: its status, counts and, for a failure, the error, in `job_runs`
 * and in its recorded attempt, in one transaction. Only while the attempt is the row's latest and
 * still `started`: once a process has written its end (a post worker may complete a run), or a
 * newer attempt has started, nothing overwrites it.
 * @returns whether this call wrote the end.
 */
export function finishJobRun(db: Queryable, attempt: JobRunAttempt, args: JobRunEnd): Promise<boolean> {
  return db.knex.transaction((trx) => endJobRun({ knex: trx, adapter: db.adapter }, attempt, {}, args));
}

/**
 * Writes an attempt's end where it is still live and `where` also holds, with its recorded
 * attempt's end (whatever status `args` names), inside the caller's transaction.
 * @returns whether it did.
 */
async function endJobRun(q: Queryable, attempt: JobRunAttempt, where: Record<string, unknown>, args: JobRunEnd): Promise<boolean> {
  const now = q.adapter.toDriverValue(INSTANT, args.now);
  const updated = await q.knex('job_runs')
    .where({ ...liveAttempt(attempt), ...where })
    .update({
      status: args.status,
      counts: JSON.stringify(args.counts),
      error: args.error === undefined ? null : redactSecrets(args.error),
      finished_at: now,
      heartbeat_at: now,
      updated_at: now,
    });
  if (updated !== 1) return false;
  await endRecordedAttempt(q, attempt, { status: args.status, at: now, counts: args.counts, error: args.error, exitCode: args.exitCode, endedBy: args.endedBy });
  return true;
}

/**
 * Records that an attempt lost its app lock: only its recorded attempt (`lock_lost`, with the
 * error and exit code), while that is `started`, or `dead` because a newer attempt found it
 * first. `job_runs` is left to the attempt that holds the lock now, or to the next one.
 * @returns whether it was recorded.
 */
export async function recordLostLock(db: Queryable, attempt: JobRunAttempt, args: { counts: Record<string, unknown>; error: string; exitCode: number; now: string }): Promise<boolean> {
  const at = db.adapter.toDriverValue(INSTANT, args.now);
  return endRecordedAttempt(db, attempt, { status: 'lock_lost', at, counts: args.counts, error: args.error, exitCode: args.exitCode }, ['started', 'dead']);
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
  db: Queryable,
  attempt: JobRunAttempt,
  args: JobRunEnd & { status: Extract<JobRunStatus, 'completed' | 'unavailable' | 'needs_review'> },
): Promise<boolean> {
  return db.knex.transaction(async (trx) => {
    if (!(await endJobRun({ knex: trx, adapter: db.adapter }, attempt, { stage: 'post' }, args))) return false;
    if (args.status !== 'completed') return true;
    const run = (await trx('job_runs').select('job_name', 'run_key').where({ id: attempt.id }).first()) as { job_name: string; run_key: string };
    await moveSourceMark({ knex: trx, adapter: db.adapter }, { jobName: run.job_name, runKey: run.run_key, now: args.now });
    return true;
  });
}

/**
 * Completes a run key left `needs_review` (or `unavailable`) once an operator has resolved its
 * last open ledger item (`idem review --mark-posted`): `completed`, finished now; its counts stay
 * as the run wrote them; its source mark moves; its latest recorded attempt becomes `completed`,
 * `ended_by` the operator's command (its exit code stays the one its process ended with).
 * @param args.by who resolved it, for example `idem review --mark-posted 536365 (alice)`.
 * @returns whether this call completed it (false: the run key is in neither status).
 */
export async function completeReviewedJobRun(db: Queryable, args: { jobName: string; runKey: string; by: string; now: string }): Promise<boolean> {
  const now = db.adapter.toDriverValue(INSTANT, args.now);
  return db.knex.transaction(async (trx) => {
    const q = { knex: trx, adapter: db.adapter };
    const updated = await trx('job_runs')
      .where({ job_name: args.jobName, run_key: args.runKey })
      .whereIn('status', ['needs_review', 'unavailable'])
      .update({ status: 'completed', updated_at: now, finished_at: now });
    if (updated !== 1) return false;
    const run = (await findJobRun(q, args.jobName, args.runKey))!;
    await endRecordedAttempt(q, { id: run.id, attempt: run.attempts }, { status: 'completed', at: now, endedBy: args.by }, ['needs_review']);
    // With the run, its source mark (see `completePostedJobRun`).
    await moveSourceMark(q, args);
    return true;
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
