import type { Knex } from 'knex';
import { CLAIMABLE_LEDGER_ROWS_SQL, claimableBindings, type LedgerClaimRequest } from '../ledger-claim.ts';

/**
 * PostgreSQL: one statement. The subquery locks the first `limit` claimable rows and skips rows
 * another claimer holds locked (`FOR UPDATE SKIP LOCKED`), so concurrent workers never wait on
 * each other nor take the same row; under READ COMMITTED a row another claimer committed
 * meanwhile is re-checked against the WHERE and dropped (its claim is live now).
 * Bindings: claimed_by, claim_expires_at, then the claimable bindings, then limit.
 * https://www.postgresql.org/docs/current/sql-select.html#SQL-FOR-UPDATE-SHARE
 */
export const POSTGRES_CLAIM_LEDGER_SQL =
  'update post_ledger set claimed_by = ?, claim_expires_at = ? ' +
  `where id in (select id from post_ledger where ${CLAIMABLE_LEDGER_ROWS_SQL} order by id limit ? for update skip locked) ` +
  'returning *';

/** Claims ledger rows on PostgreSQL (see {@link POSTGRES_CLAIM_LEDGER_SQL}); rows in id order. */
export async function claimPostgresLedgerItems(knex: Knex, request: LedgerClaimRequest): Promise<Record<string, unknown>[]> {
  const result = await knex.raw(POSTGRES_CLAIM_LEDGER_SQL, [request.worker, request.expires, ...claimableBindings(request), request.limit]);
  return (result.rows as Record<string, unknown>[]).sort((a, b) => Number(a.id) - Number(b.id));
}
