import type { Queryable } from '../db/queryable.ts';
import { idempotencyKey } from './idempotency-key.ts';
import { LEDGER_TABLE as LEDGER } from './ledger-item.ts';
import { ledgerInstant } from './ledger-write.ts';

const INSERT_BATCH_ROWS = 100;
/** Fresh staged records read per query while enqueueing. */
const ENQUEUE_PAGE_ROWS = 1000;
/** The ledger columns the enqueue's per-record look-ups filter on. */
const RECORD_COLUMNS = ['job_name', 'destination', 'source_system', 'source_reference', 'status'];

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
  const now = ledgerInstant(q, args.nowIso);
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
    // More pages follow, and each looks the ledger up per record. Planned from statistics taken
    // before this run (an empty ledger, at a first import), those look-ups would read the run's
    // index, every row of the job each, so every page would cost more than the one before as the
    // ledger grows. Refreshed once, counting this transaction's rows, they go by the record
    // index. Always after a full page, however large the ledger: it is shared by every job, and
    // statistics with no rows of this job would pick the run's index just the same. After a
    // smaller first page, where the ledger has no column statistics yet (a backfill's first
    // date): the next run's look-ups are planned with them.
    if (enqueued === 0) await q.adapter.refreshStatistics(q.knex, LEDGER, RECORD_COLUMNS, fresh.length === ENQUEUE_PAGE_ROWS ? undefined : rows.length);
    enqueued += rows.length;
  }
  if (enqueued === 0) return 0;

  await q.knex(LEDGER)
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
