import type { Queryable } from '../db/queryable.ts';
import { DELETED_VERSION } from '../pipeline/record-deletions.ts';
import { idempotencyKey } from './idempotency-key.ts';
import { LEDGER_TABLE as LEDGER } from './ledger-item.ts';
import { ledgerInstant } from './ledger-write.ts';

const INSERT_BATCH_ROWS = 100;
/** Deleted target rows read per query while enqueueing. */
const ENQUEUE_PAGE_ROWS = 1000;

/**
 * Enqueues the deletion (content version `DELETED_VERSION`) of every record the run marked
 * deleted in the target (`deleted_in_run_key` = the run key) at a destination that posts
 * deletions, where the ledger holds a version of the record at that destination and its newest
 * live version is not already the deletion (a rerun of the run key enqueues nothing twice). A
 * record the ledger never held there was never posted: nothing to delete. Older versions still
 * `pending` or `failed` become `superseded`: a create not yet sent is never sent. Runs in the
 * upsert's transaction, after the records are marked.
 *
 * The idempotency key is the deletion version's, with a `#n` suffix after n earlier deletions of
 * the record (a record deleted, back, and deleted again).
 * @returns the number of items enqueued.
 */
export async function enqueueDeletions(
  q: Queryable,
  args: { jobName: string; destination: string; target: string; sourceSystem: string; runKey: string; nowIso: string },
): Promise<number> {
  const record = (alias: string): string =>
    `${alias}.job_name = ? and ${alias}.destination = ? and ${alias}.source_system = t.source_system and ${alias}.source_reference = t.source_reference`;
  const scope = [args.jobName, args.destination];
  const now = ledgerInstant(q, args.nowIso);
  const newest = () =>
    q.knex(`${LEDGER} as l`).select('l.row_hash').whereRaw(`${record('l')} and l.status <> 'superseded'`, scope).orderBy('l.id', 'desc').limit(1);
  let enqueued = 0;
  let afterId = 0;
  for (;;) {
    const deleted = (await q.knex(`${args.target} as t`)
      .select('t.id', 't.source_system', 't.source_reference')
      .select(q.knex.raw(`(select count(*) from ${LEDGER} c where ${record('c')} and c.row_hash = ?) as earlier`, [...scope, DELETED_VERSION]))
      .where({ 't.source_system': args.sourceSystem, 't.deleted_in_run_key': args.runKey })
      .whereNotNull('t.deleted_at')
      .where('t.id', '>', afterId)
      // '' stands for "no live version": a record never enqueued here is left alone.
      .whereRaw('coalesce((?), ?) not in (?, ?)', [newest(), '', '', DELETED_VERSION])
      .orderBy('t.id')
      .limit(ENQUEUE_PAGE_ROWS)) as { id: number | string; source_system: string; source_reference: string; earlier: number | string }[];
    if (deleted.length === 0) break;
    afterId = Number(deleted.at(-1)!.id);
    const rows = deleted.map((r) => ({
      job_name: args.jobName,
      destination: args.destination,
      source_system: r.source_system,
      source_reference: r.source_reference,
      row_hash: DELETED_VERSION,
      idempotency_key: `${idempotencyKey(args.jobName, r.source_system, r.source_reference, DELETED_VERSION)}${Number(r.earlier) > 0 ? `#${Number(r.earlier)}` : ''}`,
      run_key: args.runKey,
      status: 'pending',
      attempts: 0,
      created_at: now,
      updated_at: now,
    }));
    for (let i = 0; i < rows.length; i += INSERT_BATCH_ROWS) await q.knex(LEDGER).insert(rows.slice(i, i + INSERT_BATCH_ROWS));
    enqueued += rows.length;
  }
  if (enqueued === 0) return 0;
  await q.knex(LEDGER)
    .where({ job_name: args.jobName, destination: args.destination })
    .whereIn('status', ['pending', 'failed'])
    .whereNot('row_hash', DELETED_VERSION)
    .whereExists((sub) =>
      sub
        .select(q.knex.raw('1'))
        .from(`${args.target} as t`)
        .whereRaw(`t.source_system = ${LEDGER}.source_system and t.source_reference = ${LEDGER}.source_reference and t.deleted_in_run_key = ?`, [args.runKey])
        .whereNotNull('t.deleted_at'),
    )
    .update({ status: 'superseded', updated_at: now });
  return enqueued;
}
