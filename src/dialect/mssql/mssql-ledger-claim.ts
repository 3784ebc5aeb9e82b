import type { Knex } from 'knex';
import { CLAIMABLE_LEDGER_ROWS_SQL, claimableBindings, type LedgerClaimRequest } from '../ledger-claim.ts';

/**
 * SQL Server: an UPDATE through a CTE that reads the first `limit` claimable rows with
 * `UPDLOCK, READPAST, ROWLOCK`: update locks so two claimers never both take a row, READPAST
 * so one skips (not waits for) rows another holds locked, row locks so it does not escalate
 * to page locks that READPAST would skip whole. The CTE keeps the ORDER BY (a bare
 * `UPDATE TOP (n)` takes arbitrary rows). `OUTPUT inserted.*` returns the claimed rows.
 * Bindings: limit, then the claimable bindings, then claimed_by, claim_expires_at.
 * https://learn.microsoft.com/sql/t-sql/queries/hints-transact-sql-table (READPAST, UPDLOCK)
 */
export const MSSQL_CLAIM_LEDGER_SQL =
  `with claimable as (select top (?) * from [post_ledger] with (updlock, readpast, rowlock) where ${CLAIMABLE_LEDGER_ROWS_SQL} order by [id]) ` +
  'update claimable set [claimed_by] = ?, [claim_expires_at] = ? output inserted.*;';

/** Claims ledger rows on SQL Server (see {@link MSSQL_CLAIM_LEDGER_SQL}); rows in id order. */
export async function claimMssqlLedgerItems(knex: Knex, request: LedgerClaimRequest): Promise<Record<string, unknown>[]> {
  const rows = (await knex.raw(MSSQL_CLAIM_LEDGER_SQL, [request.limit, ...claimableBindings(request), request.worker, request.expires])) as Record<string, unknown>[];
  return rows.sort((a, b) => Number(a.id) - Number(b.id));
}
