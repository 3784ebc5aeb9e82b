import type { LedgerItem } from './ledger-item.ts';

/** The mark a repost's items carry at the end of their idempotency key: `#repost-<n>` (see `enqueueReposts`). */
export function repostMark(n: number): string {
  return `#repost-${n}`;
}

/**
 * The content version an item's request carries (`PostedRow.version`): the record's row hash,
 * and for an item of `idem repost` the repost's mark too (`<row hash>#repost-<n>`, from its
 * idempotency key). A look-up (check-before-create) so tells the record a repost wrote from the
 * one its version's first post wrote: it sends the repost's update once, and after a crash finds
 * it applied instead of sending it again.
 */
export function postedVersion(item: Pick<LedgerItem, 'version' | 'idempotencyKey'>): string {
  const mark = /#repost-\d+$/.exec(item.idempotencyKey);
  return mark ? `${item.version}${mark[0]}` : item.version;
}
