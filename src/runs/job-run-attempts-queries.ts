import type { Knex } from 'knex';
import type { Database } from '../db/database.ts';
import type { Queryable } from '../db/queryable.ts';
import { column } from '../column/column-type.ts';
import { redactSecrets } from '../text/redact-secrets.ts';
import type { AttemptTrigger } from './attempt-trigger.ts';
import type { JobRunAttempt } from './job-run.ts';
import type { RecordedAttempt, RecordedAttemptStatus } from './recorded-attempt.ts';

const NULLABLE_INSTANT = column.instant({ nullable: true });

interface AttemptRow {
  id: number | string;
  job_name: string;
  run_key: string;
  attempt: number | string | null;
  status: RecordedAttemptStatus;
  triggered_by: string;
  os_user: string | null;
  host: string | null;
  pid: number | string | null;
  command: string | null;
  started_at: unknown;
  ended_at: unknown;
  ended_by: string | null;
  exit_code: number | string | null;
  error: string | null;
  counts: string | null;
}

const numberOrNull = (value: number | string | null): number | null => (value === null ? null : Number(value));

function toRecordedAttempt(db: Queryable, row: AttemptRow): RecordedAttempt {
  const instant = (value: unknown): string | null => db.adapter.fromDriverValue(NULLABLE_INSTANT, value) as string | null;
  return {
    id: Number(row.id),
    jobName: row.job_name,
    runKey: row.run_key,
    attempt: numberOrNull(row.attempt),
    status: row.status,
    triggeredBy: row.triggered_by,
    osUser: row.os_user,
    host: row.host,
    pid: numberOrNull(row.pid),
    command: row.command,
    startedAt: instant(row.started_at)!,
    endedAt: instant(row.ended_at),
    endedBy: row.ended_by,
    exitCode: numberOrNull(row.exit_code),
    error: row.error,
    counts: row.counts === null ? null : (JSON.parse(row.counts) as Record<string, unknown>),
  };
}

/** How an attempt ended, as its row records it. `at` is a driver value (the adapter's instant). */
export interface AttemptEnd {
  readonly status: RecordedAttemptStatus;
  readonly at: unknown;
  readonly counts?: Record<string, unknown> | undefined;
  /** Redacted here. */
  readonly error?: string | undefined;
  readonly exitCode?: number | undefined;
  readonly endedBy?: string | undefined;
}

/** The columns an {@link AttemptEnd} writes (`counts` and `exit_code` only when given: a review's resolution keeps them). */
function endColumns(end: AttemptEnd): Record<string, unknown> {
  return {
    status: end.status,
    ended_at: end.at,
    ended_by: end.endedBy === undefined ? null : end.endedBy.slice(0, 300),
    error: end.error === undefined ? null : redactSecrets(end.error),
    ...(end.counts === undefined ? {} : { counts: JSON.stringify(end.counts) }),
    ...(end.exitCode === undefined ? {} : { exit_code: end.exitCode }),
  };
}

/**
 * Adds an attempt's row: `attempt` null and `end` given for a run that started none (`noop`),
 * else `started`. Runs in the caller's statement order (inside `startJobRun`'s transaction).
 */
export async function insertRecordedAttempt(
  q: Queryable,
  args: { jobRunId: number; jobName: string; runKey: string; attempt: number | null; trigger: AttemptTrigger; startedAt: unknown; end?: AttemptEnd },
): Promise<void> {
  const { trigger } = args;
  await q.knex('job_run_attempts').insert({
    job_run_id: args.jobRunId,
    job_name: args.jobName,
    run_key: args.runKey,
    attempt: args.attempt,
    status: 'started',
    triggered_by: trigger.triggeredBy,
    os_user: trigger.osUser?.slice(0, 100) ?? null,
    host: trigger.host.slice(0, 255),
    pid: trigger.pid,
    command: trigger.command === null ? null : redactSecrets(trigger.command),
    started_at: args.startedAt,
    ended_at: null,
    ended_by: null,
    exit_code: null,
    error: null,
    counts: null,
    ...(args.end ? endColumns(args.end) : {}),
  });
}

/**
 * Writes the end of `attempt`'s row while its status is one of `from` (by default: while it is
 * `started`), inside the caller's statement order (the transaction that writes the end to
 * `job_runs`). Whatever status `end` names is written as it is.
 * @returns whether a row was written (false: an attempt from before idem recorded attempts, or one already ended).
 */
export async function endRecordedAttempt(q: Queryable, attempt: JobRunAttempt, end: AttemptEnd, from: readonly RecordedAttemptStatus[] = ['started']): Promise<boolean> {
  const updated = await q.knex('job_run_attempts')
    .where({ job_run_id: attempt.id, attempt: attempt.attempt })
    .whereIn('status', from as RecordedAttemptStatus[])
    .update(endColumns(end));
  return updated > 0;
}

/**
 * A run key's recorded attempts, newest first (noops among them), a page at a time.
 * @param args.limit the most rows. @defaultValue 50
 * @param args.offset rows skipped first. @defaultValue 0
 */
export async function listRecordedAttempts(db: Queryable, args: { jobRunId: number; limit?: number; offset?: number }): Promise<RecordedAttempt[]> {
  const query = db.knex('job_run_attempts').where({ job_run_id: args.jobRunId }).orderBy('id', 'desc').limit(args.limit ?? 50);
  if (args.offset) query.offset(args.offset);
  return ((await query) as AttemptRow[]).map((row) => toRecordedAttempt(db, row));
}

/** Deletes the recorded attempts of these `job_runs` ids (`idem prune`, with their runs). @returns how many. */
export async function deleteRecordedAttemptsOf(db: Database | Queryable, jobRunIds: readonly (number | string)[], options: { dryRun: boolean }): Promise<number> {
  let total = 0;
  for (let i = 0; i < jobRunIds.length; i += 500) {
    const batch = jobRunIds.slice(i, i + 500);
    const where = (k: Knex.QueryBuilder) => k.whereIn('job_run_id', batch);
    if (options.dryRun) total += Number(((await where(db.knex('job_run_attempts')).count({ n: '*' })) as { n: number | string }[])[0]!.n);
    else total += await where(db.knex('job_run_attempts')).delete();
  }
  return total;
}
