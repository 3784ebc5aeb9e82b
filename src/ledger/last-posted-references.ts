import type { Queryable } from '../db/queryable.ts';
import { LEDGER_TABLE as LEDGER, type LedgerItem } from './ledger-item.ts';

/** Records looked up per query: the claim batches are at most 500 items. */
const REFERENCES_PER_QUERY = 500;

/**
 * The remote reference of each item's record as its last posted version left it at the item's
 * destination: the newest `posted` ledger row of the same job, destination and record, older
 * than the item, that stored a remote reference (the create's or update's answer, a look-up's
 * find, or `idem review --mark-posted --remote-ref`). `idem prune` keeps the newest posted
 * version of every record, so a pruned ledger still holds it.
 * @returns item id → remote reference; an item whose record was never posted there is absent.
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
        .whereNotNull('remote_reference')
        .orderBy('id')
        .select('id', 'source_system', 'source_reference', 'remote_reference')) as { id: number | string; source_system: string; source_reference: string; remote_reference: string }[];
      const byRecord = new Map<string, { id: number; reference: string }[]>();
      for (const row of posted) {
        const record = `${row.source_system}\n${row.source_reference}`;
        byRecord.set(record, [...(byRecord.get(record) ?? []), { id: Number(row.id), reference: row.remote_reference }]);
      }
      for (const item of chunk) {
        // In id order: the last one older than the item is the newest posted before it.
        const older = (byRecord.get(`${item.sourceSystem}\n${item.sourceReference}`) ?? []).filter((row) => row.id < item.id);
        if (older.length > 0) references.set(item.id, older.at(-1)!.reference);
      }
    }
  }
  return references;
}
