import knexFactory from 'knex';
import { afterAll, describe, expect, it } from 'vitest';
import { CLAIMABLE_LEDGER_ROWS_SQL, claimableBindings, type LedgerClaimRequest } from '../../src/dialect/ledger-claim.ts';
import { claimMssqlLedgerItems, MSSQL_CLAIM_LEDGER_SQL } from '../../src/dialect/mssql/mssql-ledger-claim.ts';
import { MYSQL_SELECT_CLAIMABLE_SQL } from '../../src/dialect/mysql/mysql-ledger-claim.ts';
import { POSTGRES_CLAIM_LEDGER_SQL } from '../../src/dialect/postgres/postgres-ledger-claim.ts';
import { SQLITE_CLAIM_LEDGER_SQL } from '../../src/dialect/sqlite/sqlite-ledger-claim.ts';

const request: LedgerClaimRequest = {
  jobName: 'online-retail-invoices',
  runKey: '2010-12-01',
  destination: 'sandbox-accounting',
  worker: 'worker 1, pid 7 on host',
  afterId: 40,
  limit: 16,
  now: new Date('2026-11-30T10:00:00.000Z'),
  expires: new Date('2026-11-30T10:01:00.000Z'),
};
/** knex's SQL Server compiler, never connected (no SQL Server here: these tests pin the SQL text). */
const mssql = knexFactory({ client: 'mssql' });

afterAll(async () => {
  await mssql.destroy();
});

describe('ledger claim SQL', () => {
  it('claims only pending rows with no live claim, after an id, in one run at one destination', () => {
    expect(CLAIMABLE_LEDGER_ROWS_SQL).toBe(
      "job_name = ? and run_key = ? and destination = ? and status = 'pending' and (claim_expires_at is null or claim_expires_at < ?) and id > ?",
    );
    expect(claimableBindings(request)).toEqual(['online-retail-invoices', '2010-12-01', 'sandbox-accounting', request.now, 40]);
  });

  it('PostgreSQL: one UPDATE over a FOR UPDATE SKIP LOCKED subquery, in id order, RETURNING the rows', () => {
    expect(POSTGRES_CLAIM_LEDGER_SQL).toBe(
      'update post_ledger set claimed_by = ?, claim_expires_at = ? where id in (select id from post_ledger where ' +
        `${CLAIMABLE_LEDGER_ROWS_SQL} order by id limit ? for update skip locked) returning *`,
    );
  });

  it('MySQL/MariaDB: a locking read that skips locked rows (then an UPDATE of its ids)', () => {
    expect(MYSQL_SELECT_CLAIMABLE_SQL).toBe(`select * from post_ledger where ${CLAIMABLE_LEDGER_ROWS_SQL} order by id limit ? for update skip locked`);
  });

  it('SQLite: one UPDATE … RETURNING (the single writer serialises claimers)', () => {
    expect(SQLITE_CLAIM_LEDGER_SQL).toBe(
      `update post_ledger set claimed_by = ?, claim_expires_at = ? where id in (select id from post_ledger where ${CLAIMABLE_LEDGER_ROWS_SQL} order by id limit ?) returning *`,
    );
  });

  it('SQL Server: UPDATE through an ordered TOP (n) CTE read WITH (UPDLOCK, READPAST, ROWLOCK), OUTPUT inserted.*', () => {
    expect(MSSQL_CLAIM_LEDGER_SQL).toBe(
      'with claimable as (select top (?) * from [post_ledger] with (updlock, readpast, rowlock) where ' +
        `${CLAIMABLE_LEDGER_ROWS_SQL} order by [id]) update claimable set [claimed_by] = ?, [claim_expires_at] = ? output inserted.*;`,
    );
    // knex turns the 8 `?` into tedious parameters @p0…@p7, in the order the adapter binds them.
    const native = mssql.raw(MSSQL_CLAIM_LEDGER_SQL, [16, ...claimableBindings(request), request.worker, request.expires]).toSQL().toNative();
    expect(native.sql).toContain('select top (@p0) * from [post_ledger] with (updlock, readpast, rowlock)');
    expect(native.sql).toContain("job_name = @p1 and run_key = @p2 and destination = @p3 and status = 'pending' and (claim_expires_at is null or claim_expires_at < @p4) and id > @p5");
    expect(native.sql).toContain('set [claimed_by] = @p6, [claim_expires_at] = @p7 output inserted.*;');
    expect(native.bindings).toEqual([16, 'online-retail-invoices', '2010-12-01', 'sandbox-accounting', request.now, 40, request.worker, request.expires]);
  });

  it('SQL Server: binds limit, the claimable bindings, then the claim, and returns the rows in id order', async () => {
    const calls: { sql: string; bindings: unknown[] }[] = [];
    const knex = { raw: async (sql: string, bindings: unknown[]) => (calls.push({ sql, bindings }), [{ id: 9 }, { id: 3 }]) };
    expect(await claimMssqlLedgerItems(knex as never, request)).toEqual([{ id: 3 }, { id: 9 }]);
    expect(calls).toEqual([{ sql: MSSQL_CLAIM_LEDGER_SQL, bindings: [16, ...claimableBindings(request), request.worker, request.expires] }]);
  });
});
