import type { Database } from '../db/database.ts';
import { UsageError } from '../errors/usage-error.ts';
import type { LedgerItem } from '../ledger/ledger-item.ts';
import { updateLedgerItem } from '../ledger/ledger-outcomes.ts';
import { countLedgerItems, selectItemsNeedingOperator } from '../ledger/ledger-reports.ts';
import { osUser } from '../runs/attempt-trigger.ts';
import { completeReviewedJobRun } from '../runs/job-runs-queries.ts';

/** Which item an operator means: a pipeline's record reference, and the destination when several hold it. */
export interface ReviewItemRef {
  readonly jobName: string;
  readonly reference: string;
  readonly destination?: string;
}

async function findOne(db: Database, ref: ReviewItemRef): Promise<LedgerItem> {
  const items = (await selectItemsNeedingOperator(db, { jobName: ref.jobName, reference: ref.reference })).filter(
    (i) => ref.destination === undefined || i.destination === ref.destination,
  );
  if (items.length === 0) throw new UsageError(`no item in review or failed for reference "${ref.reference}" of ${ref.jobName}`);
  if (items.length > 1) {
    throw new UsageError(`${items.length} items need an operator for reference "${ref.reference}" (destinations: ${items.map((i) => i.destination).join(', ')}); add --destination`);
  }
  return items[0]!;
}

/**
 * The operator checked the destination and the record is there: marks the item `posted` with its
 * remote reference. When that was the run key's last open item, its `job_runs` row becomes
 * `completed`, and so does its latest recorded attempt, ended by this command and the OS user.
 * @returns the item and whether its run is now completed.
 */
export async function markReviewItemPosted(
  db: Database,
  ref: ReviewItemRef & { remoteReference: string; nowIso: string },
): Promise<{ item: LedgerItem; runCompleted: boolean }> {
  const item = await findOne(db, ref);
  await updateLedgerItem(db, item.id, { status: 'posted', nowIso: ref.nowIso, remoteReference: ref.remoteReference, failureKind: null });
  const open = await countLedgerItems(db, { jobName: item.jobName, runKey: item.runKey });
  const stillOpen = (open.failed ?? 0) + (open.review ?? 0) + (open.pending ?? 0) + (open.sending ?? 0) > 0;
  const by = `idem review --mark-posted ${item.sourceReference}${item.destination === ref.destination ? ` --destination ${item.destination}` : ''} (${osUser() ?? 'unknown user'})`;
  const runCompleted = !stillOpen && (await completeReviewedJobRun(db, { jobName: item.jobName, runKey: item.runKey, by, now: ref.nowIso }));
  return { item, runCompleted };
}

/**
 * The operator checked the destination and the record is not there (or fixed the cause of a
 * terminal failure): puts the item back to `pending`, so the next run of its run key sends it.
 */
export async function retryReviewItem(db: Database, ref: ReviewItemRef & { nowIso: string }): Promise<LedgerItem> {
  const item = await findOne(db, ref);
  await updateLedgerItem(db, item.id, { status: 'pending', nowIso: ref.nowIso, failureKind: null });
  return item;
}
