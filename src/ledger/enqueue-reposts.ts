import type { Queryable } from '../db/queryable.ts';
import { idempotencyKey } from './idempotency-key.ts';
import { LEDGER_TABLE as LEDGER } from './ledger-item.ts';
import { ledgerInstant } from './ledger-write.ts';
import { repostMark } from './posted-version.ts';

const INSERT_BATCH_ROWS = 100;

/** Which posted records `idem repost` sends again: every one, or those posted since an instant, or one reference. */
export interface RepostSelection {
  readonly jobName: string;
  readonly destination: string;
  /** Only records whose current version was posted at or after this ISO instant. */
  readonly postedSince?: string;
  /** Only the record with this source reference. */
  readonly reference?: string;
}

/** One posted record a repost sends again: its current (posted) ledger version. */
export interface RepostCandidate {
  readonly sourceSystem: string;
  readonly sourceReference: string;
  readonly version: string;
  /** How many ledger items the record has at the destination (its repost's key suffix). */
  readonly items: number;
}

/**
 * The records whose newest live ledger version at the destination is `posted` (no newer version
 * is pending, sending, failed or in review: those are sent, or resolved, their own way), within
 * the selection, in ledger order.
 */
export async function selectRepostCandidates(q: Queryable, selection: RepostSelection): Promise<RepostCandidate[]> {
  const query = q.knex(`${LEDGER} as l`)
    .select('l.source_system', 'l.source_reference', 'l.row_hash')
    .select(
      q.knex.raw(
        `(select count(*) from ${LEDGER} c where c.job_name = l.job_name and c.destination = l.destination and c.source_system = l.source_system and c.source_reference = l.source_reference) as items`,
      ),
    )
    .where({ 'l.job_name': selection.jobName, 'l.destination': selection.destination, 'l.status': 'posted' })
    .whereNotExists((newer) =>
      newer
        .select(q.knex.raw('1'))
        .from(`${LEDGER} as n`)
        .whereRaw('n.job_name = l.job_name and n.destination = l.destination and n.source_system = l.source_system and n.source_reference = l.source_reference and n.id > l.id')
        .whereNot('n.status', 'superseded'),
    )
    .orderBy('l.id');
  if (selection.postedSince !== undefined) query.where('l.posted_at', '>=', ledgerInstant(q, selection.postedSince));
  if (selection.reference !== undefined) query.where('l.source_reference', selection.reference);
  const rows = (await query) as { source_system: string; source_reference: string; row_hash: string; items: number | string }[];
  return rows.map((row) => ({ sourceSystem: row.source_system, sourceReference: row.source_reference, version: row.row_hash, items: Number(row.items) }));
}

/**
 * Enqueues a repost: for each candidate (see {@link selectRepostCandidates}), a new `pending`
 * ledger item of the same content version under the repost's run key, so the post stage sends it
 * again through the destination's strategy, as an update of the record its last posted version
 * left there (`PostedRow.remoteReference`). Its idempotency key is the version's with
 * `#repost-<n>`, n the number of items the record had at the destination (new for every repost):
 * the version's own key would only replay the first, wrong, request. The request carries the
 * mark in its version too (see `postedVersion`), so a look-up (check-before-create) finds the
 * record the repost wrote, not the one the first post wrote. Call it in the transaction
 * that starts the repost's `job_runs` attempt: the items and the attempt commit together.
 * @returns the number of items enqueued.
 */
export async function enqueueReposts(
  q: Queryable,
  selection: RepostSelection,
  args: { runKey: string; nowIso: string },
): Promise<number> {
  const candidates = await selectRepostCandidates(q, selection);
  const now = ledgerInstant(q, args.nowIso);
  const rows = candidates.map((c) => ({
    job_name: selection.jobName,
    destination: selection.destination,
    source_system: c.sourceSystem,
    source_reference: c.sourceReference,
    row_hash: c.version,
    idempotency_key: `${idempotencyKey(selection.jobName, c.sourceSystem, c.sourceReference, c.version)}${repostMark(c.items)}`,
    run_key: args.runKey,
    status: 'pending',
    attempts: 0,
    created_at: now,
    updated_at: now,
  }));
  for (let i = 0; i < rows.length; i += INSERT_BATCH_ROWS) await q.knex(LEDGER).insert(rows.slice(i, i + INSERT_BATCH_ROWS));
  return rows.length;
}
