import knexFactory from 'knex';
import { afterAll, describe, expect, it } from 'vitest';
import { MssqlDialect } from '../../src/dialect/mssql/mssql-dialect.ts';
import { MysqlDialect } from '../../src/dialect/mysql/mysql-dialect.ts';
import { PostgresDialect } from '../../src/dialect/postgres/postgres-dialect.ts';
import { SqliteDialect } from '../../src/dialect/sqlite/sqlite-dialect.ts';
import { CLAIMABLE_LEDGER_ROWS_SQL, claimableBindings, ledgerClaimStatement, type LedgerClaimRequest } from '../../src/ledger/ledger-claim-sql.ts';

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
// The adapters only build SQL here: none of them connects before its first query.
const postgres = new PostgresDialect('postgres://etl@127.0.0.1:5432/etl');
const mysql = new MysqlDialect('mysql://etl@127.0.0.1:3306/etl');
const sqlite = new SqliteDialect('var/never-opened.sqlite3');
const mssqlDialect = new MssqlDialect('mssql://etl:secret@127.0.0.1:1433/etl');
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
    expect(ledgerClaimStatement(postgres, request)).toEqual({
      sql:
        'update post_ledger set claimed_by = ?, claim_expires_at = ? where id in (select id from post_ledger where ' +
        `${CLAIMABLE_LEDGER_ROWS_SQL} order by id limit ? for update skip locked) returning *`,
      bindings: [request.worker, request.expires, ...claimableBindings(request), 16],
      claims: true,
    });
  });

  it('MySQL/MariaDB: a locking read that skips locked rows (then an UPDATE of its ids)', () => {
    expect(ledgerClaimStatement(mysql, request)).toEqual({
      sql: `select * from post_ledger where ${CLAIMABLE_LEDGER_ROWS_SQL} order by id limit ? for update skip locked`,
      bindings: [...claimableBindings(request), 16],
      claims: false,
    });
  });

  it('SQLite: one UPDATE … RETURNING (the single writer serialises claimers)', () => {
    expect(ledgerClaimStatement(sqlite, request)).toEqual({
      sql: `update post_ledger set claimed_by = ?, claim_expires_at = ? where id in (select id from post_ledger where ${CLAIMABLE_LEDGER_ROWS_SQL} order by id limit ?) returning *`,
      bindings: [request.worker, request.expires, ...claimableBindings(request), 16],
      claims: true,
    });
  });

  it('SQL Server: UPDATE through an ordered TOP (n) CTE read WITH (UPDLOCK, READPAST, ROWLOCK), OUTPUT inserted.*', () => {
    const statement = ledgerClaimStatement(mssqlDialect, request);
    expect(statement.sql).toBe(
      'with claimable as (select top (?) * from [post_ledger] with (updlock, readpast, rowlock) where ' +
        `${CLAIMABLE_LEDGER_ROWS_SQL} order by [id]) update claimable set [claimed_by] = ?, [claim_expires_at] = ? output inserted.*;`,
    );
    expect(statement.claims).toBe(true);
    // knex turns the 8 `?` into tedious parameters @p0…@p7, in the order the statement binds them.
    const native = mssql.raw(statement.sql, [...statement.bindings]).toSQL().toNative();
    expect(native.sql).toContain('select top (@p0) * from [post_ledger] with (updlock, readpast, rowlock)');
    expect(native.sql).toContain("job_name = @p1 and run_key = @p2 and destination = @p3 and status = 'pending' and (claim_expires_at is null or claim_expires_at < @p4) and id > @p5");
    expect(native.sql).toContain('set [claimed_by] = @p6, [claim_expires_at] = @p7 output inserted.*;');
    expect(native.bindings).toEqual([16, 'online-retail-invoices', '2010-12-01', 'sandbox-accounting', request.now, 40, request.worker, request.expires]);
  });
});
