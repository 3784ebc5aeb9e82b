import type { Queryable } from '../db/queryable.ts';
import { LEDGER_TABLE as LEDGER, type LedgerItem } from './ledger-item.ts';
import { DELETED_VERSION } from '../pipeline/record-deletions.ts';

/** Records looked up per query: the claim batches are at most 500 items. */
const REFERENCES_PER_QUERY = 500;

/**
 * The remote reference of each item's record as its last posted version left it at the item's
 * destination: the newest `posted` ledger row of the same job, destination and record, older
 * than the item, that stored a remote reference (the create's or update's answer, a look-up's
 * find, or `idem review --mark-posted --remote-ref`). `idem prune` keeps the newest posted
 * version of every record, so a pruned ledger still holds it. After a posted deletion of the
 * record (content version `DELETED_VERSION`) there is none: its remote record is gone.
 * @returns item id → remote reference; an item whose record was never posted there (or whose
 *   last posted version was its deletion) is absent.
 */
export async function lastPostedReferences(q: Queryable, items: readonly LedgerItem[]): Promise<Map<number, string>> {
  const references = new Map<number, string>();
  const byScope = new Map<string, LedgerItem[]>();
  for (const item of items) {
    const scope = `${item.jobName}\n${item.destination}`;
    byScope.set(scope, [...(byScope.get(scope) ?? []), item]);
  }
  for (const scoped of byScope.values()) {
    const { jobName, destination } = scoped[0]!;
    for (let i = 0; i < scoped.length; i += REFERENCES_PER_QUERY) {
      const chunk = scoped.slice(i, i + REFERENCES_PER_QUERY);
      const posted = (await q.knex(LEDGER)
        // The record index (job, destination, system, reference, status) serves it.
        .where({ job_name: jobName, destination, status: 'posted' })
        .whereIn('source_system', [...new Set(chunk.map((item) => item.sourceSystem))])
        .whereIn('source_reference', chunk.map((item) => item.sourceReference))
        .where((w) => w.whereNotNull('remote_reference').orWhere('row_hash', DELETED_VERSION))
        .orderBy('id')
        .select('id', 'source_system', 'source_reference', 'row_hash', 'remote_reference')) as {
        id: number | string; source_system: string; source_reference: string; row_hash: string; remote_reference: string | null;
      }[];
      const byRecord = new Map<string, { id: number; reference: string | null; deletion: boolean }[]>();
      for (const row of posted) {
        const record = `${row.source_system}\n${row.source_reference}`;
        byRecord.set(record, [...(byRecord.get(record) ?? []), { id: Number(row.id), reference: row.remote_reference, deletion: row.row_hash === DELETED_VERSION }]);
      }
      for (const item of chunk) {
        // In id order: the last one older than the item is the newest posted before it. A posted
        // deletion leaves no remote record: the record, back in the source, is created again.
        const newest = (byRecord.get(`${item.sourceSystem}\n${item.sourceReference}`) ?? []).filter((row) => row.id < item.id).at(-1);
        if (newest && !newest.deletion && newest.reference !== null) references.set(item.id, newest.reference);
      }
    }
  }
  return references;
}
