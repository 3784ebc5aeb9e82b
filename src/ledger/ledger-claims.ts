import type { Knex } from 'knex';
import type { Queryable } from '../db/queryable.ts';
import type { DialectAdapter } from '../dialect/dialect-adapter.ts';
import { ledgerClaimStatement, type LedgerClaimRequest } from './ledger-claim-sql.ts';
import { LEDGER_ROW_COLUMNS, LEDGER_TABLE as LEDGER, toLedgerItem, type LedgerItem, type LedgerRow } from './ledger-item.ts';
import { databaseInstant, ledgerInstant, ledgerWrite } from './ledger-write.ts';

/** Runs one claim (see `ledgerClaimStatement`), committed on its own. @returns the claimed rows. */
async function claimRows(q: { knex: Knex; adapter: DialectAdapter }, request: LedgerClaimRequest): Promise<Record<string, unknown>[]> {
  const statement = ledgerClaimStatement(q.adapter, request);
  const result = await q.knex.raw(statement.sql, statement.bindings);
  if (statement.returnsRows) return q.adapter.rawRows(result);
  // The claim's token is new: exactly the rows this statement stamped carry it.
  return q.knex(LEDGER).select(...LEDGER_ROW_COLUMNS).where({ job_name: request.jobName, run_key: request.runKey, destination: request.destination, claim_token: request.token });
}

/**
 * Claims up to `limit` of a run's `pending` items at one destination that no claim holds (nor
 * held until less than `graceMs` ago), for `worker` under the claim token `token`, for `ttlMs`
 * by the database's clock, with ids above `afterId` (default 0), so that concurrent claimers in
 * other processes never take the same item nor wait on each other's claims (see
 * `ledgerClaimStatement`). Commits on its own.
 * @returns the claimed items, in id order (empty: nothing claimable now).
 */
export async function claimLedgerItems(
  q: { knex: Knex; adapter: DialectAdapter },
  args: Omit<LedgerClaimRequest, 'afterId'> & { afterId?: number },
): Promise<LedgerItem[]> {
  const rows = await ledgerWrite(q, () => claimRows(q, { ...args, afterId: args.afterId ?? 0 }));
  return (rows as unknown as LedgerRow[]).map(toLedgerItem).sort((a, b) => a.id - b.id);
}

/**
 * Extends every live claim `worker` holds (on `pending` and `sending` items) to `ttlMs` from the
 * database's now. A claim that has lapsed is not extended: another process may take it over (or
 * have taken it), and the worker has stopped sending under it.
 * @returns the number of items whose claim was extended.
 */
export async function renewClaims(q: Queryable, args: { worker: string; ttlMs: number }): Promise<number> {
  return ledgerWrite(q, () =>
    q.knex(LEDGER)
      .where({ claimed_by: args.worker })
      .whereIn('status', ['pending', 'sending'])
      .where('claim_expires_at', '>', databaseInstant(q))
      .update({ claim_expires_at: databaseInstant(q, args.ttlMs) }),
  );
}

/**
 * Ends now every live claim on one run key's items at one destination held by a process whose
 * name starts with `prefix` other than `except`: the items become claimable once the
 * destination's takeover grace has passed, as after any lapsed claim. The run calls it with `run `
 * once it holds the app lock, where the claims of an earlier run process can no longer be used
 * (see `runPostPhase`). Scoped to the run key, through the run's index, so its cost does not grow
 * with the ledger: a dead run's claims on other keys lapse by their expiry, or go when that key runs.
 * @returns the number of claims ended.
 */
export async function expireClaimsOf(q: Queryable, args: { jobName: string; runKey: string; destination: string; prefix: string; except: string }): Promise<number> {
  return ledgerWrite(q, () =>
    q.knex(LEDGER)
      .where({ job_name: args.jobName, run_key: args.runKey, destination: args.destination })
      .where('claimed_by', 'like', `${args.prefix}%`)
      .whereNot({ claimed_by: args.except })
      .where('claim_expires_at', '>', databaseInstant(q))
      .update({ claim_expires_at: databaseInstant(q) }),
  );
}

/**
 * Marks a claimed item `sending` (mark-before-send, before each request), counts the attempt,
 * and commits it, only while the claim `token` is still the item's and live: `pending` (or already
 * `sending`, on a retry), carrying that token, not expired by the database's clock.
 * @returns whether the item is marked; false means the claim was lost (do not send).
 */
export async function markItemSending(q: Queryable, args: { id: number; token: string; nowIso: string }): Promise<boolean> {
  const updated = await ledgerWrite(q, () =>
    q.knex(LEDGER)
      .where({ id: args.id, claim_token: args.token })
      .whereIn('status', ['pending', 'sending'])
      .where('claim_expires_at', '>', databaseInstant(q))
      .update({ status: 'sending', attempts: q.knex.raw('attempts + 1'), updated_at: ledgerInstant(q, args.nowIso) }),
  );
  return updated === 1;
}

/**
 * Moves a run's items at one destination left `sending` with no live claim (none, or one that
 * lapsed at least `graceMs` ago) to `review`: a crash, kill or long pause mid-request under
 * mark-before-send (the request may have reached the destination, so it is never resent
 * blindly). An item `sending` under a live claim belongs to a live process and is left alone.
 * Moving it ends every older claim on it: its claim token is cleared, so the process that was
 * sending, should it resume and get its answer, has its outcome refused (see `updateLedgerItem`):
 * an item in review changes only by an operator's `idem review`, who may already have retried it.
 * `claimed_by` stays, so the operator sees who was sending.
 * @returns the number of items moved.
 */
export async function moveInterruptedToReview(q: Queryable, args: { jobName: string; runKey: string; destination: string; graceMs: number; nowIso: string }): Promise<number> {
  return ledgerWrite(q, () =>
    q.knex(LEDGER)
      .where({ job_name: args.jobName, run_key: args.runKey, destination: args.destination, status: 'sending' })
      .where((w) => w.whereNull('claim_expires_at').orWhere('claim_expires_at', '<', databaseInstant(q, -args.graceMs)))
      .update({
        status: 'review',
        claim_expires_at: null,
        claim_token: null,
        last_error: 'interrupted while sending: the request may have reached the destination',
        updated_at: ledgerInstant(q, args.nowIso),
      }),
  );
}

/**
 * Puts a run's transiently failed items back to `pending`, so this attempt sends them again.
 * Called once per attempt, by the run (under its app lock) as its post stage begins: an item
 * that fails again in this attempt stays `failed` until the next one, so a run ends. Their claim
 * expiries stay: one whose request may still land at the destination is claimable only after
 * its takeover grace (see `LedgerChange.requestMayLand`).
 * @returns the number of items requeued.
 */
export async function requeueTransientFailures(q: Queryable, args: { jobName: string; runKey: string; nowIso: string }): Promise<number> {
  return ledgerWrite(q, () =>
    q.knex(LEDGER)
      .where({ job_name: args.jobName, run_key: args.runKey, status: 'failed', failure_kind: 'transient' })
      .update({ status: 'pending', updated_at: ledgerInstant(q, args.nowIso) }),
  );
}

/**
 * Releases the claims a stopping process holds on items it has not sent (a polite stop, after
 * its requests in flight finished): its `pending` items lose their claim (token and expiry), so
 * the next attempt claims them at once, without a takeover grace: this process sent none of them.
 * Items it is `sending` keep their claim (mark-before-send: they go to review if never answered).
 * @returns the number of claims released.
 */
export async function releaseUnsentClaims(q: Queryable, args: { worker: string }): Promise<number> {
  return ledgerWrite(q, () =>
    q.knex(LEDGER)
      .where({ claimed_by: args.worker, status: 'pending' })
      .whereNotNull('claim_expires_at')
      .update({ claim_token: null, claim_expires_at: null }),
  );
}
