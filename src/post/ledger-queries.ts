import type { Knex } from 'knex';
import type { DialectAdapter } from '../dialect/dialect-adapter.ts';
import { column } from '../pipeline/column-type.ts';
import { idempotencyKey } from './idempotency-key.ts';
import type { LedgerItem, LedgerStatus } from './ledger-item.ts';

/** A knex (or a transaction) with its dialect adapter: what every ledger query needs. */
export interface Queryable {
  readonly knex: Knex | Knex.Transaction;
  readonly adapter: DialectAdapter;
}

const LEDGER = 'post_ledger';
const INSTANT = column.instant();
const INSERT_BATCH_ROWS = 100;

interface LedgerRow {
  id: number | string;
  job_name: string;
  destination: string;
  source_system: string;
  source_reference: string;
  row_hash: string;
  idempotency_key: string;
  run_key: string;
  status: LedgerStatus;
  failure_kind: 'transient' | 'terminal' | null;
  attempts: number;
  remote_reference: string | null;
  last_http_status: number | null;
  last_error: string | null;
}

/** @internal */
export function toLedgerItem(row: LedgerRow): LedgerItem {
  return {
    id: Number(row.id),
    jobName: row.job_name,
    destination: row.destination,
    sourceSystem: row.source_system,
    sourceReference: row.source_reference,
    version: row.row_hash,
    idempotencyKey: row.idempotency_key,
    runKey: row.run_key,
    status: row.status,
    failureKind: row.failure_kind,
    attempts: row.attempts,
    remoteReference: row.remote_reference,
    lastHttpStatus: row.last_http_status,
    lastError: row.last_error,
  };
}

const stamp = (q: Queryable, nowIso: string): unknown => q.adapter.toDriverValue(INSTANT, nowIso);

/**
 * Enqueues every staged record whose content differs from the newest version the ledger holds
 * for it at this destination: new records, changed records, and a record changed back to an
 * earlier content (A → B → A posts A again). An unchanged record was enqueued when it last
 * changed. Older versions still `pending` or `failed` become `superseded`. Runs in the upsert's
 * transaction, so a crash can never leave a changed row without its ledger item.
 *
 * The idempotency key of a version the ledger held before gets a `#n` suffix (n = how many
 * times it was enqueued before): the first key would only replay the first response.
 * @returns the number of items enqueued.
 */
export async function enqueueLedgerItems(
  q: Queryable,
  args: { jobName: string; destination: string; staging: string; runKey: string; nowIso: string },
): Promise<number> {
  const record = (alias: string): string =>
    `${alias}.job_name = ? and ${alias}.destination = ? and ${alias}.source_system = s.source_system and ${alias}.source_reference = s.source_reference`;
  const scope = [args.jobName, args.destination];
  const fresh = (await q.knex(`${args.staging} as s`)
    .select('s.source_system', 's.source_reference', 's.row_hash')
    .select(q.knex.raw(`(select count(*) from ${LEDGER} c where ${record('c')} and c.row_hash = s.row_hash) as earlier`, scope))
    // Skip a record whose newest live ledger version is this content.
    .whereNotExists((newest) =>
      newest
        .select(q.knex.raw('1'))
        .from(`${LEDGER} as l`)
        .whereRaw(`${record('l')} and l.row_hash = s.row_hash and l.status <> 'superseded'`, scope)
        .whereNotExists((newer) =>
          newer
            .select(q.knex.raw('1'))
            .from(`${LEDGER} as n`)
            .whereRaw(
              "n.job_name = l.job_name and n.destination = l.destination and n.source_system = l.source_system and n.source_reference = l.source_reference and n.status <> 'superseded' and n.id > l.id",
            ),
        ),
    )
    .orderBy('s.seq')) as { source_system: string; source_reference: string; row_hash: string; earlier: number | string }[];
  if (fresh.length === 0) return 0;
  const now = stamp(q, args.nowIso);

  await q.knex(`${LEDGER}`)
    .where({ job_name: args.jobName, destination: args.destination })
    .whereIn('status', ['pending', 'failed'])
    .whereExists((sub) =>
      sub
        .select(q.knex.raw('1'))
        .from(`${args.staging} as s`)
        .whereRaw(`s.source_system = ${LEDGER}.source_system and s.source_reference = ${LEDGER}.source_reference and s.row_hash <> ${LEDGER}.row_hash`),
    )
    .update({ status: 'superseded', updated_at: now });

  const rows = fresh.map((r) => ({
    job_name: args.jobName,
    destination: args.destination,
    source_system: r.source_system,
    source_reference: r.source_reference,
    row_hash: r.row_hash,
    idempotency_key: `${idempotencyKey(args.jobName, r.source_system, r.source_reference, r.row_hash)}${Number(r.earlier) > 0 ? `#${Number(r.earlier)}` : ''}`,
    run_key: args.runKey,
    status: 'pending',
    attempts: 0,
    created_at: now,
    updated_at: now,
  }));
  for (let i = 0; i < rows.length; i += INSERT_BATCH_ROWS) {
    await q.knex(LEDGER).insert(rows.slice(i, i + INSERT_BATCH_ROWS));
  }
  return rows.length;
}

/**
 * The next page of a run's items to send at one destination, in id order after `afterId`:
 * `pending` ones, and `failed` ones whose failure was transient (a rerun retries them).
 */
export async function selectPostableItems(
  q: Queryable,
  args: { jobName: string; runKey: string; destination: string; afterId: number; limit: number },
): Promise<LedgerItem[]> {
  const rows = (await postableItemsQuery(q, args).where('id', '>', args.afterId).orderBy('id').limit(args.limit)) as LedgerRow[];
  return rows.map(toLedgerItem);
}

/** The ledger rows a run's post stage sends to one destination: `pending`, and `failed` transiently. */
export function postableItemsQuery(q: Queryable, args: { jobName: string; runKey: string; destination: string }): Knex.QueryBuilder {
  return q.knex(LEDGER)
    .where({ job_name: args.jobName, run_key: args.runKey, destination: args.destination })
    .where((w) => w.where('status', 'pending').orWhere((f) => f.where('status', 'failed').where('failure_kind', 'transient')));
}

/** Moves every item of a run still `sending` (a crash mid-request under mark-before-send) to `review`. */
export async function moveInterruptedToReview(q: Queryable, args: { jobName: string; runKey: string; destination: string; nowIso: string }): Promise<number> {
  return q.knex(LEDGER)
    .where({ job_name: args.jobName, run_key: args.runKey, destination: args.destination, status: 'sending' })
    .update({ status: 'review', last_error: 'interrupted while sending: the request may have reached the destination', updated_at: stamp(q, args.nowIso) });
}

/** Records a state change of one item. `attempts` is the number of attempts made so far in total. */
export async function updateLedgerItem(
  q: Queryable,
  id: number,
  change: {
    status: LedgerStatus;
    nowIso: string;
    attempts?: number;
    failureKind?: 'transient' | 'terminal' | null;
    remoteReference?: string | null;
    lastHttpStatus?: number | null;
    lastError?: string | null;
  },
): Promise<void> {
  const now = stamp(q, change.nowIso);
  await q.knex(LEDGER)
    .where({ id })
    .update({
      status: change.status,
      updated_at: now,
      ...(change.attempts === undefined ? {} : { attempts: change.attempts }),
      ...(change.failureKind === undefined ? {} : { failure_kind: change.failureKind }),
      ...(change.remoteReference === undefined ? {} : { remote_reference: change.remoteReference }),
      ...(change.lastHttpStatus === undefined ? {} : { last_http_status: change.lastHttpStatus }),
      ...(change.lastError === undefined ? {} : { last_error: change.lastError }),
      ...(change.status === 'posted' ? { posted_at: now } : {}),
    });
}

/** Counts a run's items by status, for the run's outcome. */
export async function countLedgerItems(q: Queryable, args: { jobName: string; runKey: string }): Promise<Partial<Record<LedgerStatus, number>>> {
  const rows = (await q.knex(LEDGER).where({ job_name: args.jobName, run_key: args.runKey }).select('status').count({ n: '*' }).groupBy('status')) as {
    status: LedgerStatus;
    n: number | string;
  }[];
  return Object.fromEntries(rows.map((r) => [r.status, Number(r.n)]));
}

/** The items of a pipeline that need an operator (`review`, `failed`), oldest first. */
export async function selectItemsNeedingOperator(q: Queryable, args: { jobName: string; reference?: string }): Promise<LedgerItem[]> {
  const query = q.knex(LEDGER).where({ job_name: args.jobName }).whereIn('status', ['review', 'failed']).orderBy('id');
  if (args.reference !== undefined) query.where({ source_reference: args.reference });
  return ((await query) as LedgerRow[]).map(toLedgerItem);
}

/** Items in `review` and `failed` per pipeline (all pipelines, or one). */
export async function countItemsNeedingOperator(q: Queryable, jobName?: string): Promise<Record<string, { review: number; failed: number }>> {
  const query = q.knex(LEDGER).whereIn('status', ['review', 'failed']).select('job_name', 'status').count({ n: '*' }).groupBy('job_name', 'status');
  if (jobName !== undefined) query.where({ job_name: jobName });
  const out: Record<string, { review: number; failed: number }> = {};
  for (const row of (await query) as { job_name: string; status: 'review' | 'failed'; n: number | string }[]) {
    (out[row.job_name] ??= { review: 0, failed: 0 })[row.status] = Number(row.n);
  }
  return out;
}
