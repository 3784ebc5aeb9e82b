import type { Knex } from 'knex';
import { CLAIMABLE_LEDGER_ROWS_SQL, claimableBindings, type LedgerClaimRequest } from '../ledger-claim.ts';

/**
 * MySQL 8.0+ / MariaDB 10.6+: a locking read that skips rows another claimer holds
 * (`FOR UPDATE SKIP LOCKED`), then an UPDATE of exactly those ids, in one transaction.
 * (MySQL has no `UPDATE … RETURNING`, and cannot use LIMIT in an `IN` subquery.)
 * Bindings: the claimable bindings, then limit.
 * https://mariadb.com/kb/en/select/#skip-locked, https://dev.mysql.com/doc/refman/8.0/en/innodb-locking-reads.html
 */
export const MYSQL_SELECT_CLAIMABLE_SQL = `select * from post_ledger where ${CLAIMABLE_LEDGER_ROWS_SQL} order by id limit ? for update skip locked`;

/** Claims ledger rows on MySQL/MariaDB (see {@link MYSQL_SELECT_CLAIMABLE_SQL}); rows in id order. */
export async function claimMysqlLedgerItems(knex: Knex, request: LedgerClaimRequest): Promise<Record<string, unknown>[]> {
  return knex.transaction(async (trx) => {
    const [rows] = (await trx.raw(MYSQL_SELECT_CLAIMABLE_SQL, [...claimableBindings(request), request.limit])) as [Record<string, unknown>[]];
    if (rows.length === 0) return [];
    await trx('post_ledger')
      .whereIn('id', rows.map((r) => r.id as number))
      .update({ claimed_by: request.worker, claim_expires_at: request.expires });
    return rows.map((r) => ({ ...r, claimed_by: request.worker, claim_expires_at: request.expires }));
  });
}
