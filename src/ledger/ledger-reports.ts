import type { Knex } from 'knex';
import type { Queryable } from '../db/queryable.ts';
import { LEDGER_TABLE as LEDGER, toLedgerItem, type LedgerItem, type LedgerRow, type LedgerStatus } from './ledger-item.ts';
import { databaseInstant } from './ledger-write.ts';
import { newerPostedVersion } from './newer-posted-version.ts';

/** The ledger rows a run's post stage sends to one destination: `pending`, and `failed` transiently. */
export function postableItemsQuery(q: Queryable, args: { jobName: string; runKey: string; destination: string }): Knex.QueryBuilder {
  return q.knex(LEDGER)
    .where({ job_name: args.jobName, run_key: args.runKey, destination: args.destination })
    .where((w) => w.where('status', 'pending').orWhere((f) => f.where('status', 'failed').where('failure_kind', 'transient')));
}

/** Counts a run's items by status, for the run's outcome. */
export async function countLedgerItems(q: Queryable, args: { jobName: string; runKey: string }): Promise<Partial<Record<LedgerStatus, number>>> {
  const rows = (await q.knex(LEDGER).where({ job_name: args.jobName, run_key: args.runKey }).select('status').count({ n: '*' }).groupBy('status')) as {
    status: LedgerStatus;
    n: number | string;
  }[];
  return Object.fromEntries(rows.map((r) => [r.status, Number(r.n)]));
}

/** Counts a run's `failed` items whose failure is transient (a rerun retries them). */
export async function countTransientFailures(q: Queryable, args: { jobName: string; runKey: string }): Promise<number> {
  const rows = (await q.knex(LEDGER).where({ job_name: args.jobName, run_key: args.runKey, status: 'failed', failure_kind: 'transient' }).count({ n: '*' })) as { n: number | string }[];
  return Number(rows[0]?.n ?? 0);
}

/**
 * A run's `posted` items at one destination that are still the newest posted version of their
 * record there, in id order: what `--force-reconcile` checks. An older version a later post
 * replaced is history: the destination is not expected to hold it as its current record.
 */
export async function selectPostedItems(q: Queryable, args: { jobName: string; runKey: string; destination: string }): Promise<LedgerItem[]> {
  const rows = (await q.knex(`${LEDGER} as l`)
    .where({ 'l.job_name': args.jobName, 'l.run_key': args.runKey, 'l.destination': args.destination, 'l.status': 'posted' })
    .whereNotExists(newerPostedVersion(q))
    .select('l.*')
    .orderBy('l.id')) as LedgerRow[];
  return rows.map(toLedgerItem);
}

/**
 * The items of a pipeline that need an operator (`review`, `failed`), oldest first.
 * @param args.limit the most items (default: all). @param args.offset items skipped first. @defaultValue 0
 */
export async function selectItemsNeedingOperator(q: Queryable, args: { jobName: string; reference?: string; limit?: number; offset?: number }): Promise<LedgerItem[]> {
  const query = q.knex(LEDGER).where({ job_name: args.jobName }).whereIn('status', ['review', 'failed']).orderBy('id');
  if (args.reference !== undefined) query.where({ source_reference: args.reference });
  if (args.limit !== undefined) query.limit(args.limit);
  if (args.offset) query.offset(args.offset);
  return ((await query) as LedgerRow[]).map(toLedgerItem);
}

/**
 * A run's items that are not posted (nor replaced by a newer version: `superseded`), in id order:
 * pending, sending, failed or in review. @param args.limit the most items. @param args.offset items skipped first.
 */
export async function selectUnpostedItems(q: Queryable, args: { jobName: string; runKey: string; limit: number; offset?: number }): Promise<LedgerItem[]> {
  const query = q.knex(LEDGER).where({ job_name: args.jobName, run_key: args.runKey }).whereNotIn('status', ['posted', 'superseded']).orderBy('id').limit(args.limit);
  if (args.offset) query.offset(args.offset);
  return ((await query) as LedgerRow[]).map(toLedgerItem);
}

/**
 * Items in `review` and `failed` per pipeline (all pipelines, or one), and of those in review,
 * `duplicatesAtDestination`: the ones a look-up found the destination holding more than once
 * (`remote_duplicates` set, see `LedgerChange.remoteDuplicates`).
 */
export async function countItemsNeedingOperator(q: Queryable, jobName?: string): Promise<Record<string, { review: number; failed: number; duplicatesAtDestination: number }>> {
  const duplicated = q.knex.raw('case when remote_duplicates is null then 0 else 1 end');
  const query = q.knex(LEDGER)
    .whereIn('status', ['review', 'failed'])
    .select('job_name', 'status')
    .count({ n: '*' })
    .sum({ duplicates: duplicated })
    .groupBy('job_name', 'status');
  if (jobName !== undefined) query.where({ job_name: jobName });
  const out: Record<string, { review: number; failed: number; duplicatesAtDestination: number }> = {};
  for (const row of (await query) as { job_name: string; status: 'review' | 'failed'; n: number | string; duplicates: number | string | null }[]) {
    const counts = (out[row.job_name] ??= { review: 0, failed: 0, duplicatesAtDestination: 0 });
    counts[row.status] = Number(row.n);
    counts.duplicatesAtDestination += Number(row.duplicates ?? 0);
  }
  return out;
}

/**
 * A run key's items `pending` or `sending` under a live claim (by the database's clock) of a
 * process whose `claimed_by` starts with `prefix` (`worker ` for `idem work` processes).
 */
export async function countLiveClaims(q: Queryable, args: { jobName: string; runKey: string; prefix: string }): Promise<number> {
  const rows = (await q.knex(LEDGER)
    .where({ job_name: args.jobName, run_key: args.runKey })
    .whereIn('status', ['pending', 'sending'])
    .where('claimed_by', 'like', `${args.prefix}%`)
    .where('claim_expires_at', '>', databaseInstant(q))
    .count({ n: '*' })) as { n: number | string }[];
  return Number(rows[0]?.n ?? 0);
}
