import type { Knex } from 'knex';
import type { Queryable } from '../db/queryable.ts';
import { idempotencyKey } from './idempotency-key.ts';
import { LEDGER_TABLE as LEDGER, type LedgerItem, type LedgerStatus } from './ledger-item.ts';
import { databaseInstant, ledgerInstant, ledgerWrite } from './ledger-write.ts';

/** One item's state change, as {@link updateLedgerItem} takes it. */
export interface LedgerChange {
  readonly status: LedgerStatus;
  readonly nowIso: string;
  /** The number of attempts made so far in total. */
  readonly attempts?: number;
  readonly failureKind?: 'transient' | 'terminal' | null;
  readonly remoteReference?: string | null;
  readonly lastHttpStatus?: number | null;
  readonly lastError?: string | null;
  /**
   * Write only while the item still carries this claim token (`claim_token`): a process whose
   * claim was taken over writes nothing (its token is fenced off).
   */
  readonly claimToken?: string;
  /**
   * The item's last request may still be applied by the destination (its outcome is unknown, and
   * its strategy looks the record up before it sends again): the claim lapses now instead of being
   * released, so the item is claimable again only after its destination's takeover grace
   * (see `ResolvedDestination.takeoverGraceMs`), when that request can no longer land.
   */
  readonly requestMayLand?: boolean;
  /**
   * With `review`: the remote references of the records a look-up found at the destination for
   * the item's record, more than one (`post_ledger.remote_duplicates`, a JSON array). A change to
   * any status but `review` clears them: the operator resolved the duplicate.
   */
  readonly remoteDuplicates?: readonly string[];
}

/** The `remote_duplicates` column's value for a change: set with `review`, cleared otherwise. */
function remoteDuplicatesValue(change: LedgerChange): string | null | undefined {
  if (change.remoteDuplicates !== undefined) return JSON.stringify(change.remoteDuplicates);
  return change.status === 'review' ? undefined : null;
}

/**
 * Records a state change of one item and ends its claim (see `LedgerChange.requestMayLand`).
 * With `claimToken`, only while the item still carries that token. A change to `review` clears
 * the token: every claim on the item is over, and only an operator changes it now.
 * @returns the number of rows changed (0 or 1; 0 with `claimToken`: the write was refused).
 */
export async function updateLedgerItem(q: Queryable, id: number, change: LedgerChange): Promise<number> {
  const now = ledgerInstant(q, change.nowIso);
  const duplicates = remoteDuplicatesValue(change);
  return ledgerWrite(q, () =>
    q.knex(LEDGER)
      .where({ id, ...(change.claimToken === undefined ? {} : { claim_token: change.claimToken }) })
      .update({
        status: change.status,
        updated_at: now,
        claim_expires_at: change.requestMayLand ? databaseInstant(q) : null,
        ...(change.status === 'review' ? { claim_token: null } : {}),
        ...(duplicates === undefined ? {} : { remote_duplicates: duplicates }),
        ...(change.attempts === undefined ? {} : { attempts: change.attempts }),
        ...(change.failureKind === undefined ? {} : { failure_kind: change.failureKind }),
        ...(change.remoteReference === undefined ? {} : { remote_reference: change.remoteReference }),
        ...(change.lastHttpStatus === undefined ? {} : { last_http_status: change.lastHttpStatus }),
        ...(change.lastError === undefined ? {} : { last_error: change.lastError }),
        ...(change.status === 'posted' ? { posted_at: now } : {}),
      }),
  );
}

/** The fields of a {@link LedgerChange} that map to a column each, with the column. */
const CHANGE_COLUMNS = [
  ['status', 'status'],
  ['attempts', 'attempts'],
  ['failureKind', 'failure_kind'],
  ['remoteReference', 'remote_reference'],
  ['lastHttpStatus', 'last_http_status'],
  ['lastError', 'last_error'],
] as const;

/** The most changes {@link updateLedgerItems} takes at once. */
export const MAX_BATCH_CHANGES = 100;

/**
 * Records the state changes of many items in ONE statement (a `CASE id WHEN … THEN …` per
 * column, standard SQL on every dialect), ending their claims (see `LedgerChange.requestMayLand`),
 * only where the items still carry the claim token `claimToken`. One round trip per batch instead
 * of one per item: on a loaded machine each round trip costs more than the statement. `updated_at` (and `posted_at` of posted items) is
 * the batch's latest `nowIso`. At most {@link MAX_BATCH_CHANGES} changes (SQL Server takes at
 * most 2100 parameters a statement).
 * @returns the number of rows changed (fewer than `changes`: the others were refused, no longer
 *   carrying `claimToken`).
 * @throws Error for more than {@link MAX_BATCH_CHANGES} changes.
 */
export async function updateLedgerItems(q: Queryable, changes: readonly (readonly [number, LedgerChange])[], claimToken: string): Promise<number> {
  if (changes.length === 0) return 0;
  if (changes.length > MAX_BATCH_CHANGES) throw new Error(`updateLedgerItems: ${changes.length} changes, at most ${MAX_BATCH_CHANGES}`);
  const nowIso = changes.reduce((latest, [, c]) => (c.nowIso > latest ? c.nowIso : latest), changes[0]![1].nowIso);
  const now = ledgerInstant(q, nowIso);
  const set: Record<string, unknown> = { updated_at: now, claim_expires_at: null };
  const mayLand = changes.filter(([, c]) => c.requestMayLand).map(([id]) => id);
  if (mayLand.length > 0) {
    const lapsed = q.adapter.instantFromNowSql(0);
    set.claim_expires_at = q.knex.raw(`case when id in (${mayLand.map(() => '?').join(', ')}) then ${lapsed.sql} else null end`, [...mayLand, ...lapsed.bindings]);
  }
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
  // Review ends every claim on an item (see `updateLedgerItem`).
  const review = changes.filter(([, c]) => c.status === 'review').map(([id]) => id);
  if (review.length > 0) set.claim_token = q.knex.raw(`case when id in (${review.map(() => '?').join(', ')}) then null else claim_token end`, review);
  // Claimed items come from `pending`, which never holds duplicates: only new ones are written.
  const duplicates = changes.filter(([, c]) => c.remoteDuplicates !== undefined);
  if (duplicates.length > 0) {
    set.remote_duplicates = q.knex.raw(`case id ${duplicates.map(() => 'when ? then ?').join(' ')} else remote_duplicates end`, duplicates.flatMap(([id, c]) => [id, JSON.stringify(c.remoteDuplicates)]));
  }
  const posted = changes.filter(([, c]) => c.status === 'posted').map(([id]) => id);
  if (posted.length === changes.length) set.posted_at = now;
  else if (posted.length > 0) set.posted_at = q.knex.raw(`case when id in (${posted.map(() => '?').join(', ')}) then ? else posted_at end`, [...posted, now]);
  return ledgerWrite(q, () =>
    q.knex(LEDGER)
      .whereIn('id', changes.map(([id]) => id))
      .where({ claim_token: claimToken })
      .update(set),
  );
}

/**
 * Puts a posted item whose record reconciliation did not find at its destination back to
 * `pending`, under a new repair idempotency key (`#repair-n`, n one more than the item's last
 * repair): the same key would only replay the first, now lost, response. The normal post stage
 * then repairs it through the destination's strategy.
 * @param args.reason recorded as the item's `last_error`, e.g. `reconcile: missing at the destination`.
 */
export async function requeueForRepair(q: Queryable, item: LedgerItem, args: { reason: string; nowIso: string }): Promise<void> {
  const repair = (Number(/#repair-(\d+)$/.exec(item.idempotencyKey)?.[1] ?? 0) || 0) + 1;
  await q.knex(LEDGER).where({ id: item.id }).update({
    status: 'pending',
    idempotency_key: `${idempotencyKey(item.jobName, item.sourceSystem, item.sourceReference, item.version)}#repair-${repair}`,
    last_error: args.reason,
    updated_at: ledgerInstant(q, args.nowIso),
  });
}
