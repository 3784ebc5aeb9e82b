import type { Queryable } from '../db/queryable.ts';
import { LEDGER_TABLE, toLedgerItem, type LedgerItem, type LedgerRow } from './ledger-item.ts';

/**
 * Every post ledger item of one pipeline, every run key and status, ordered by destination,
 * business key and id (oldest version first): what the test kit and `idem prove` read back.
 */
export async function selectJobLedgerItems(q: Queryable, jobName: string): Promise<LedgerItem[]> {
  const rows = (await q.knex(LEDGER_TABLE).where({ job_name: jobName }).orderBy(['destination', 'source_reference', 'id'])) as LedgerRow[];
  return rows.map(toLedgerItem);
}
