import type { Knex } from 'knex';
import type { Queryable } from '../db/queryable.ts';
import type { DialectAdapter } from '../dialect/dialect-adapter.ts';
import { ledgerClaimStatement, type LedgerClaimRequest } from './ledger-claim-sql.ts';
import { LEDGER_TABLE as LEDGER, toLedgerItem, type LedgerItem, type LedgerRow } from './ledger-item.ts';
import { ledgerInstant, ledgerWrite } from './ledger-write.ts';

/** Runs one claim (see `ledgerClaimStatement`) and commits it. @returns the claimed rows. */
async function claimRows(q: { knex: Knex; adapter: DialectAdapter }, request: LedgerClaimRequest): Promise<Record<string, unknown>[]> {
  const statement = ledgerClaimStatement(q.adapter, request);
  if (statement.claims) return q.adapter.rawRows(await q.knex.raw(statement.sql, statement.bindings));
  // A locking read, then an update of exactly those ids, in one transaction: the read's locks
  // keep other claimers off the rows until the claim commits.
  return q.knex.transaction(async (trx) => {
    const rows = q.adapter.rawRows(await trx.raw(statement.sql, statement.bindings));
    if (rows.length > 0) {
      await trx(LEDGER)
        .whereIn('id', rows.map((r) => r.id as number))
        .update({ claimed_by: request.worker, claim_expires_at: request.expires });
    }
    return rows;
  });
}

/**
 * Claims up to `limit` of a run's `pending` items at one destination that no live claim holds,
 * for `worker`, until `nowIso + ttlMs`, with ids above `afterId` (default 0), so that concurrent
 * claimers in other processes never take the same item nor wait on each other's claims (see
 * `ledgerClaimStatement`). Commits on its own.
 * @returns the claimed items, in id order (empty: nothing claimable now).
 */
export async function claimLedgerItems(
  q: { knex: Knex; adapter: DialectAdapter },
  args: { jobName: string; runKey: string; destination: string; worker: string; limit: number; nowIso: string; ttlMs: number; afterId?: number },
): Promise<LedgerItem[]> {
  const expiresIso = new Date(Date.parse(args.nowIso) + args.ttlMs).toISOString();
  const request: LedgerClaimRequest = {
    jobName: args.jobName,
    runKey: args.runKey,
    destination: args.destination,
    worker: args.worker,
    afterId: args.afterId ?? 0,
    limit: args.limit,
    now: ledgerInstant(q, args.nowIso),
    expires: ledgerInstant(q, expiresIso),
  };
  const rows = await ledgerWrite(q, () => claimRows(q, request));
  return (rows as unknown as LedgerRow[]).map(toLedgerItem).sort((a, b) => a.id - b.id);
}

/**
 * Extends every live claim `worker` holds (on `pending` and `sending` items) to `expiresIso`.
 * @returns the number of items whose claim was extended.
 */
export async function renewClaims(q: Queryable, args: { worker: string; expiresIso: string }): Promise<number> {
  return ledgerWrite(q, () =>
    q.knex(LEDGER)
      .where({ claimed_by: args.worker })
      .whereIn('status', ['pending', 'sending'])
      .whereNotNull('claim_expires_at')
      .update({ claim_expires_at: ledgerInstant(q, args.expiresIso) }),
  );
}

/**
 * Releases every claim on one run key's items held by a process whose name starts with `prefix`
 * other than `except`. The run calls it with `run ` once it holds the app lock: a claim of an
 * earlier run process of the same pipeline belongs to a dead process (it held the lock, the lock
 * is ours now). Scoped to the run key, through the run's index, so its cost does not grow with
 * the ledger: a dead run's claims on other keys lapse by their expiry, or go when that key runs.
 * @returns the number of items released.
 */
export async function releaseClaimsOf(q: Queryable, args: { jobName: string; runKey: string; prefix: string; except: string }): Promise<number> {
  return ledgerWrite(q, () =>
    q.knex(LEDGER)
      .where({ job_name: args.jobName, run_key: args.runKey })
      .where('claimed_by', 'like', `${args.prefix}%`)
      .whereNot({ claimed_by: args.except })
      .whereNotNull('claim_expires_at')
      .update({ claim_expires_at: null }),
  );
}

/**
 * Marks a claimed item `sending` (mark-before-send, before each request) and commits it, only
 * while `worker`'s claim on it is live: `pending` (or already `sending`, on a retry), claimed by
 * it, not expired.
 * @returns whether the item is marked; false means the claim was lost (do not send).
 */
export async function markItemSending(q: Queryable, args: { id: number; worker: string; nowIso: string }): Promise<boolean> {
  const now = ledgerInstant(q, args.nowIso);
  const updated = await ledgerWrite(q, () =>
    q.knex(LEDGER)
      .where({ id: args.id, claimed_by: args.worker })
      .whereIn('status', ['pending', 'sending'])
      .where('claim_expires_at', '>', now)
      .update({ status: 'sending', updated_at: now }),
  );
  return updated === 1;
}

/**
 * Moves a run's items left `sending` with no live claim to `review`: a crash or kill mid-request
 * under mark-before-send (the request may have reached the destination, so it is never resent
 * blindly). An item `sending` under a live claim belongs to a live worker and is left alone.
 * `claimed_by` stays, so the operator sees who was sending, and that worker's late outcome (it
 * did get an answer) still lands.
 * @returns the number of items moved.
 */
export async function moveInterruptedToReview(q: Queryable, args: { jobName: string; runKey: string; destination: string; nowIso: string }): Promise<number> {
  const now = ledgerInstant(q, args.nowIso);
  return ledgerWrite(q, () =>
    q.knex(LEDGER)
      .where({ job_name: args.jobName, run_key: args.runKey, destination: args.destination, status: 'sending' })
      .where((w) => w.whereNull('claim_expires_at').orWhere('claim_expires_at', '<', now))
      .update({ status: 'review', claim_expires_at: null, last_error: 'interrupted while sending: the request may have reached the destination', updated_at: now }),
  );
}

/**
 * Puts a run's transiently failed items back to `pending`, so this attempt sends them again.
 * Called once per attempt, by the run (under its app lock) as its post stage begins: an item
 * that fails again in this attempt stays `failed` until the next one, so a run ends.
 * @returns the number of items requeued.
 */
export async function requeueTransientFailures(q: Queryable, args: { jobName: string; runKey: string; nowIso: string }): Promise<number> {
  return ledgerWrite(q, () =>
    q.knex(LEDGER)
      .where({ job_name: args.jobName, run_key: args.runKey, status: 'failed', failure_kind: 'transient' })
      .update({ status: 'pending', claim_expires_at: null, updated_at: ledgerInstant(q, args.nowIso) }),
  );
}
