import type { Knex } from 'knex';
import type { DialectAdapter } from '../dialect/dialect-adapter.ts';
import { retryLockConflict } from '../db/retry-lock-conflict.ts';
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
/** Fresh staged records read per query while enqueueing. */
const ENQUEUE_PAGE_ROWS = 1000;
/** The ledger columns the enqueue's per-record look-ups filter on. */
const RECORD_COLUMNS = ['job_name', 'destination', 'source_system', 'source_reference', 'status'];

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
 * Runs one ledger write, again on a lock conflict (concurrent workers write the same table):
 * see `retryLockConflict`. Inside a caller's transaction it runs once: a conflict has rolled the
 * whole transaction back, so only the caller can start it again.
 */
function retryingWrite<T>(q: Queryable, write: () => Promise<T>): Promise<T> {
  return (q.knex as Knex.Transaction).isTransaction ? write() : retryLockConflict(q.adapter, write);
}

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
  const now = stamp(q, args.nowIso);
  // Fresh records are read a page at a time (memory stays flat in the run's size) and all are
  // found before older versions are superseded: the newest live version decides what is fresh.
  let enqueued = 0;
  let afterSeq = 0;
  for (;;) {
    const fresh = (await q.knex(`${args.staging} as s`)
      .select('s.seq', 's.source_system', 's.source_reference', 's.row_hash')
      .select(q.knex.raw(`(select count(*) from ${LEDGER} c where ${record('c')} and c.row_hash = s.row_hash) as earlier`, scope))
      .where('s.seq', '>', afterSeq)
      // Skip a record whose newest live ledger version is this content. Driven by the staged rows
      // through the record index: a join against the whole ledger would cost the ledger's size on
      // every run (quadratic over a backfill). row_hash is never '', so '' stands for "none".
      .whereRaw('coalesce((?), ?) <> s.row_hash', [
        q.knex(`${LEDGER} as l`)
          .select('l.row_hash')
          .whereRaw(`${record('l')} and l.status <> 'superseded'`, scope)
          .orderBy('l.id', 'desc')
          .limit(1),
        '',
      ])
      .orderBy('s.seq')
      .limit(ENQUEUE_PAGE_ROWS)) as { seq: number | string; source_system: string; source_reference: string; row_hash: string; earlier: number | string }[];
    if (fresh.length === 0) break;
    afterSeq = Number(fresh.at(-1)!.seq);
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
    // More pages follow, and each looks the ledger up per record. Planned from statistics
    // taken before this run (an empty ledger, at a first import), those look-ups were read
    // through the run's index, every row of the job each: page after page grew the ledger
    // and each look-up with it (3 s a page by the fifth). Refreshed once, counting this
    // transaction's rows, they go by the record index. Always, however large the ledger: it is
    // shared by every job, and statistics with no rows of this job would pick the run's index
    // just the same.
    if (enqueued === 0 && fresh.length === ENQUEUE_PAGE_ROWS) await q.adapter.refreshStatistics(q.knex, LEDGER, RECORD_COLUMNS);
    enqueued += rows.length;
  }
  if (enqueued === 0) return 0;

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
  return enqueued;
}

/** The ledger rows a run's post stage sends to one destination: `pending`, and `failed` transiently. */
export function postableItemsQuery(q: Queryable, args: { jobName: string; runKey: string; destination: string }): Knex.QueryBuilder {
  return q.knex(LEDGER)
    .where({ job_name: args.jobName, run_key: args.runKey, destination: args.destination })
    .where((w) => w.where('status', 'pending').orWhere((f) => f.where('status', 'failed').where('failure_kind', 'transient')));
}

/**
 * Moves a run's items left `sending` with no live claim to `review`: a crash or kill mid-request
 * under mark-before-send (the request may have reached the destination, so it is never resent
 * blindly). An item `sending` under a live claim belongs to a live worker and is left alone.
 * `claimed_by` stays, so the operator sees who was sending, and that worker's late outcome (it
 * did get an answer) still lands.
 * @returns the number of items moved.
 */
export async function moveInterruptedToReview(q: Queryable, args: { jobName: string; runKey: string; destination: string; nowIso: string }): Promise<number> {
  const now = stamp(q, args.nowIso);
  return retryingWrite(q, () =>
    q.knex(LEDGER)
      .where({ job_name: args.jobName, run_key: args.runKey, destination: args.destination, status: 'sending' })
      .where((w) => w.whereNull('claim_expires_at').orWhere('claim_expires_at', '<', now as Knex.Value))
      .update({ status: 'review', claim_expires_at: null, last_error: 'interrupted while sending: the request may have reached the destination', updated_at: now }),
  );
}

/**
 * Puts a run's transiently failed items back to `pending`, so this attempt sends them again.
 * Called once per attempt, by the run (under its app lock) as its post stage begins: an item
 * that fails again in this attempt stays `failed` until the next one, so a run ends.
 * @returns the number of items requeued.
 */
export async function requeueTransientFailures(q: Queryable, args: { jobName: string; runKey: string; nowIso: string }): Promise<number> {
  return retryingWrite(q, () =>
    q.knex(LEDGER)
      .where({ job_name: args.jobName, run_key: args.runKey, status: 'failed', failure_kind: 'transient' })
      .update({ status: 'pending', claim_expires_at: null, updated_at: stamp(q, args.nowIso) }),
  );
}

/**
 * Claims up to `limit` of a run's `pending` items at one destination that no live claim holds,
 * for `worker`, until `nowIso + ttlMs`, with ids above `afterId` (default 0), by the dialect's skip-locked claim (see
 * `DialectAdapter.claimLedgerItems`).
 * @returns the claimed items, in id order (empty: nothing claimable now).
 */
export async function claimLedgerItems(
  q: { knex: Knex; adapter: DialectAdapter },
  args: { jobName: string; runKey: string; destination: string; worker: string; limit: number; nowIso: string; ttlMs: number; afterId?: number },
): Promise<LedgerItem[]> {
  const expiresIso = new Date(Date.parse(args.nowIso) + args.ttlMs).toISOString();
  const rows = await retryingWrite(q, () =>
    q.adapter.claimLedgerItems(q.knex, {
      jobName: args.jobName,
      runKey: args.runKey,
      destination: args.destination,
      worker: args.worker,
      afterId: args.afterId ?? 0,
      limit: args.limit,
      now: stamp(q, args.nowIso) as Knex.Value,
      expires: stamp(q, expiresIso) as Knex.Value,
    }),
  );
  return (rows as unknown as LedgerRow[]).map(toLedgerItem);
}

/**
 * Extends every live claim `worker` holds (on `pending` and `sending` items) to `expiresIso`.
 * @returns the number of items whose claim was extended.
 */
export async function renewClaims(q: Queryable, args: { worker: string; expiresIso: string }): Promise<number> {
  return retryingWrite(q, () =>
    q.knex(LEDGER)
      .where({ claimed_by: args.worker })
      .whereIn('status', ['pending', 'sending'])
      .whereNotNull('claim_expires_at')
      .update({ claim_expires_at: stamp(q, args.expiresIso) }),
  );
}

/**
 * Releases every claim on one run key's items held by a process whose name starts with `prefix`
 * other than `except`. The run calls it with `run ` once it holds the app lock: a claim of an
 * earlier run process of the same pipeline belongs to a dead process (it held the lock, the lock
 * is ours now). Scoped to the run key, through the run's index, so its cost does not grow with
 * the ledger: a dead run's claims on other keys lapse by their expiry, or go when that key runs.
 * @returns the number of items released.
 */
export async function releaseClaimsOf(q: Queryable, args: { jobName: string; runKey: string; prefix: string; except: string }): Promise<number> {
  return retryingWrite(q, () =>
    q.knex(LEDGER)
      .where({ job_name: args.jobName, run_key: args.runKey })
      .where('claimed_by', 'like', `${args.prefix}%`)
      .whereNot({ claimed_by: args.except })
      .whereNotNull('claim_expires_at')
      .update({ claim_expires_at: null }),
  );
}

/**
 * Marks a claimed item `sending` (mark-before-send, before each request) and commits it, only
 * while `worker`'s claim on it is live: `pending` (or already `sending`, on a retry), claimed by
 * it, not expired.
 * @returns whether the item is marked; false means the claim was lost (do not send).
 */
export async function markItemSending(q: Queryable, args: { id: number; worker: string; nowIso: string }): Promise<boolean> {
  const now = stamp(q, args.nowIso);
  const updated = await retryingWrite(q, () =>
    q.knex(LEDGER)
      .where({ id: args.id, claimed_by: args.worker })
      .whereIn('status', ['pending', 'sending'])
      .where('claim_expires_at', '>', now as Knex.Value)
      .update({ status: 'sending', updated_at: now }),
  );
  return updated === 1;
}

/**
 * Records a state change of one item and releases its claim. `attempts` is the number of
 * attempts made so far in total. With `claimedBy`, only while that process is still the item's
 * last claimant (a worker whose claim lapsed and was taken over writes nothing).
 * @returns the number of rows changed (0 or 1).
 */
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
    claimedBy?: string;
  },
): Promise<number> {
  const now = stamp(q, change.nowIso);
  return retryingWrite(q, () =>
    q.knex(LEDGER)
      .where({ id, ...(change.claimedBy === undefined ? {} : { claimed_by: change.claimedBy }) })
      .update({
        status: change.status,
        updated_at: now,
        claim_expires_at: null,
        ...(change.attempts === undefined ? {} : { attempts: change.attempts }),
        ...(change.failureKind === undefined ? {} : { failure_kind: change.failureKind }),
        ...(change.remoteReference === undefined ? {} : { remote_reference: change.remoteReference }),
        ...(change.lastHttpStatus === undefined ? {} : { last_http_status: change.lastHttpStatus }),
        ...(change.lastError === undefined ? {} : { last_error: change.lastError }),
        ...(change.status === 'posted' ? { posted_at: now } : {}),
      }),
  );
}

/** One item's state change, as {@link updateLedgerItem} takes it. */
export type LedgerChange = Parameters<typeof updateLedgerItem>[2];

/** The fields of a {@link LedgerChange} that map to a column each, with the column. */
const CHANGE_COLUMNS = [
  ['status', 'status'],
  ['attempts', 'attempts'],
  ['failureKind', 'failure_kind'],
  ['remoteReference', 'remote_reference'],
  ['lastHttpStatus', 'last_http_status'],
  ['lastError', 'last_error'],
] as const;

/**
 * Records the state changes of many items in ONE statement (a `CASE id WHEN … THEN …` per
 * column, standard SQL on every dialect), releasing their claims, only where `claimedBy` is still
 * the last claimant. One round trip per batch instead of one per item: on a loaded machine each
 * round trip costs more than the statement. `updated_at` (and `posted_at` of posted items) is
 * the batch's latest `nowIso`. At most {@link MAX_BATCH_CHANGES} changes (SQL Server takes at
 * most 2100 parameters a statement).
 * @returns the number of rows changed.
 */
export async function updateLedgerItems(q: Queryable, changes: readonly (readonly [number, LedgerChange])[], claimedBy: string): Promise<number> {
  if (changes.length === 0) return 0;
  if (changes.length > MAX_BATCH_CHANGES) throw new Error(`updateLedgerItems: ${changes.length} changes, at most ${MAX_BATCH_CHANGES}`);
  const nowIso = changes.reduce((latest, [, c]) => (c.nowIso > latest ? c.nowIso : latest), changes[0]![1].nowIso);
  const now = stamp(q, nowIso);
  const set: Record<string, unknown> = { updated_at: now, claim_expires_at: null };
  for (const [field, columnName] of CHANGE_COLUMNS) {
    const given = changes.filter(([, c]) => c[field] !== undefined);
    if (given.length === 0) continue;
    // One value for every item (the usual batch: all posted at the first attempt) needs no CASE:
    // far fewer parameters, cheaper for knex to build and for the server to parse.
    const first = given[0]![1][field];
    if (given.length === changes.length && given.every(([, c]) => c[field] === first)) {
      set[columnName] = first;
      continue;
    }
    set[columnName] = q.knex.raw(`case id ${given.map(() => 'when ? then ?').join(' ')} else ${columnName} end`, given.flatMap(([id, c]) => [id, c[field] as Knex.Value]));
  }
  const posted = changes.filter(([, c]) => c.status === 'posted').map(([id]) => id);
  if (posted.length === changes.length) set.posted_at = now;
  else if (posted.length > 0) set.posted_at = q.knex.raw(`case when id in (${posted.map(() => '?').join(', ')}) then ? else posted_at end`, [...posted, now as Knex.Value]);
  return retryingWrite(q, () =>
    q.knex(LEDGER)
      .whereIn('id', changes.map(([id]) => id))
      .where({ claimed_by: claimedBy })
      .update(set),
  );
}

/** The most changes {@link updateLedgerItems} takes at once. */
export const MAX_BATCH_CHANGES = 100;

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
