import type { Knex } from 'knex';
import { CLAIMABLE_LEDGER_ROWS_SQL, claimableBindings, type LedgerClaimRequest } from '../ledger-claim.ts';

/**
 * SQLite: one `UPDATE … RETURNING` (SQLite 3.35+). SQLite has one writer at a time and an
 * UPDATE takes the write lock before it reads (waiting up to the busy timeout), so the subquery
 * and the update see the same rows and two processes never claim one row; no row locks needed.
 * Bindings: claimed_by, claim_expires_at, then the claimable bindings, then limit.
 */
export const SQLITE_CLAIM_LEDGER_SQL =
  'update post_ledger set claimed_by = ?, claim_expires_at = ? ' +
  `where id in (select id from post_ledger where ${CLAIMABLE_LEDGER_ROWS_SQL} order by id limit ?) ` +
  'returning *';

/** Claims ledger rows on SQLite (see {@link SQLITE_CLAIM_LEDGER_SQL}); rows in id order. */
export async function claimSqliteLedgerItems(knex: Knex, request: LedgerClaimRequest): Promise<Record<string, unknown>[]> {
  const rows = (await knex.raw(SQLITE_CLAIM_LEDGER_SQL, [request.worker, request.expires, ...claimableBindings(request), request.limit])) as Record<string, unknown>[];
  return rows.sort((a, b) => Number(a.id) - Number(b.id));
}
