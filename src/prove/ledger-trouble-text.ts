import type { Database } from '../db/database.ts';
import { selectJobLedgerItems } from '../ledger/select-job-ledger-items.ts';
import type { LedgerItem } from '../ledger/ledger-item.ts';

/** Characters of a destination's error kept in the prove table. */
const MAX_ERROR_CHARS = 160;

/**
 * Why a run's items did not reach the destination, for the prove table: the items in `failed`
 * or `review`, grouped by destination, HTTP status and error, the largest group first with one
 * of its references, e.g. `406 item(s) failed at cars-api: HTTP 404 (e.g. reference 17): no route
 * POST /cars`. Empty when no item failed.
 */
export async function ledgerTroubleText(db: Database, jobName: string): Promise<string | undefined> {
  const troubled = (await selectJobLedgerItems(db, jobName)).filter((item) => item.status === 'failed' || item.status === 'review');
  if (troubled.length === 0) return undefined;
  const groups = new Map<string, LedgerItem[]>();
  for (const item of troubled) {
    const key = `${item.status}\u0000${item.destination}\u0000${item.lastHttpStatus}\u0000${item.lastError}`;
    groups.set(key, [...(groups.get(key) ?? []), item]);
  }
  const ranked = [...groups.values()].sort((a, b) => b.length - a.length);
  const texts = ranked.slice(0, 2).map((items) => {
    const first = items[0]!;
    const status = first.lastHttpStatus === null ? 'no answer' : `HTTP ${first.lastHttpStatus}`;
    const error = (first.lastError ?? 'no error recorded').replace(/\s+/g, ' ').slice(0, MAX_ERROR_CHARS);
    return `${items.length} item(s) ${first.status === 'failed' ? 'failed' : 'in review'} at ${first.destination}: ${status} (e.g. reference ${first.sourceReference}): ${error}`;
  });
  if (ranked.length > 2) texts.push(`${ranked.length - 2} other kind(s) of failure`);
  return texts.join('; ');
}
