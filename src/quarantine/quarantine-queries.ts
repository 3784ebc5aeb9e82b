import type { Database } from '../db/database.ts';
import { column } from '../column/column-type.ts';

/** One quarantine row, as idem reads it. */
export interface QuarantineEntry {
  readonly id: number;
  readonly jobName: string;
  readonly runKey: string;
  readonly source: string;
  readonly line: number | null;
  readonly reason: string;
  readonly raw: string | null;
  readonly createdAt: string;
}

/** How many rows {@link listQuarantine} returns unless asked for another limit. */
export const DEFAULT_QUARANTINE_LIMIT = 1000;

/** How many rows are quarantined for a pipeline (one run key, or all). */
export async function countQuarantine(db: Database, filter: { jobName: string; runKey?: string }): Promise<number> {
  const query = db.knex('quarantine').where({ job_name: filter.jobName }).count({ n: '*' });
  if (filter.runKey !== undefined) query.where({ run_key: filter.runKey });
  return Number(((await query) as { n: number | string }[])[0]?.n ?? 0);
}

/**
 * Quarantined rows of a pipeline (one run key, or all), in run key and line order, the first
 * `limit` of them after the first `offset`. @defaultValue limit {@link DEFAULT_QUARANTINE_LIMIT}, offset 0
 */
export async function listQuarantine(db: Database, filter: { jobName: string; runKey?: string; limit?: number; offset?: number }): Promise<QuarantineEntry[]> {
  const query = db.knex('quarantine').where({ job_name: filter.jobName }).orderBy([{ column: 'run_key' }, { column: 'line' }, { column: 'id' }]).limit(filter.limit ?? DEFAULT_QUARANTINE_LIMIT);
  if (filter.offset) query.offset(filter.offset);
  if (filter.runKey !== undefined) query.where({ run_key: filter.runKey });
  const rows = (await query) as Record<string, unknown>[];
  return rows.map((r) => ({
    id: Number(r.id),
    jobName: r.job_name as string,
    runKey: r.run_key as string,
    source: r.source as string,
    line: r.line === null ? null : Number(r.line),
    reason: r.reason as string,
    raw: (r.raw as string | null) ?? null,
    createdAt: db.adapter.fromDriverValue(column.instant(), r.created_at) as string,
  }));
}
