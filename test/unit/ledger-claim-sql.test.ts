import knexFactory from 'knex';
import { afterAll, describe, expect, it } from 'vitest';
import { MssqlDialect } from '../../src/dialect/mssql/mssql-dialect.ts';
import { MysqlDialect } from '../../src/dialect/mysql/mysql-dialect.ts';
import { PostgresDialect } from '../../src/dialect/postgres/postgres-dialect.ts';
import { SqliteDialect } from '../../src/dialect/sqlite/sqlite-dialect.ts';
import { claimableLedgerRows, ledgerClaimStatement, type LedgerClaimRequest } from '../../src/ledger/ledger-claim-sql.ts';

const request: LedgerClaimRequest = {
  jobName: 'online-retail-invoices',
  runKey: '2010-12-01',
  destination: 'sandbox-accounting',
  worker: 'worker 1, pid 7 on host',
  token: '0b6f1d2e-7c4a-4e0b-9a51-3f2d8c6e1a77',
  afterId: 40,
  limit: 16,
  ttlMs: 60_000,
  graceMs: 25_000,
};
// A claim returns the columns a LedgerItem is read from, not `*` (no timestamps to parse per item).
const RETURNED = 'id, job_name, destination, source_system, source_reference, row_hash, idempotency_key, run_key, status, failure_kind, attempts, remote_reference, last_http_status, last_error';
const OUTPUT = RETURNED.split(', ').map((c) => `inserted.[${c}]`).join(', ');
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
  it('claims only pending rows under no claim, or one that lapsed a grace ago by the database clock, after an id, in one run at one destination', () => {
    expect(claimableLedgerRows(postgres, request)).toEqual({
      sql:
        "job_name = ? and run_key = ? and destination = ? and status = 'pending' and " +
        "(claim_expires_at is null or claim_expires_at < (clock_timestamp() + ?::bigint * interval '1 millisecond')) and id > ?",
      bindings: ['online-retail-invoices', '2010-12-01', 'sandbox-accounting', -25_000, 40],
    });
    // Each dialect reads its own clock, in the type its instant columns hold.
    expect(claimableLedgerRows(mysql, request).sql).toContain('claim_expires_at < date_add(utc_timestamp(3), interval ? microsecond)');
    expect(claimableLedgerRows(mysql, request).bindings).toContain(-25_000_000);
    expect(claimableLedgerRows(sqlite, request).sql).toContain("claim_expires_at < strftime('%Y-%m-%dT%H:%M:%fZ', 'now', ?)");
    expect(claimableLedgerRows(sqlite, request).bindings).toContain('-25 seconds');
    expect(claimableLedgerRows(mssqlDialect, request).sql).toContain('claim_expires_at < dateadd(millisecond, ?, sysutcdatetime())');
  });

  it('PostgreSQL: one UPDATE over a FOR UPDATE SKIP LOCKED subquery, in id order, stamping name, token and expiry, RETURNING the columns idem reads', () => {
    const claimable = claimableLedgerRows(postgres, request);
    expect(ledgerClaimStatement(postgres, request)).toEqual({
      sql:
        "update post_ledger set claimed_by = ?, claim_token = ?, claim_expires_at = (clock_timestamp() + ?::bigint * interval '1 millisecond') " +
        `where id in (select id from post_ledger where ${claimable.sql} order by id limit ? for update skip locked) returning ${RETURNED}`,
      bindings: [request.worker, request.token, 60_000, ...claimable.bindings, 16],
      returnsRows: true,
    });
  });

  it('MySQL/MariaDB: one UPDATE … ORDER BY id LIMIT n, no transaction held across round trips; the rows are read back by token', () => {
    const claimable = claimableLedgerRows(mysql, request);
    expect(ledgerClaimStatement(mysql, request)).toEqual({
      sql:
        'update post_ledger set claimed_by = ?, claim_token = ?, claim_expires_at = date_add(utc_timestamp(3), interval ? microsecond) ' +
        `where ${claimable.sql} order by id limit ?`,
      bindings: [request.worker, request.token, 60_000_000, ...claimable.bindings, 16],
      returnsRows: false,
    });
  });

  it('SQLite: one UPDATE … RETURNING (the single writer serialises claimers)', () => {
    const claimable = claimableLedgerRows(sqlite, request);
    expect(ledgerClaimStatement(sqlite, request)).toEqual({
      sql:
        "update post_ledger set claimed_by = ?, claim_token = ?, claim_expires_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now', ?) " +
        `where id in (select id from post_ledger where ${claimable.sql} order by id limit ?) returning ${RETURNED}`,
      bindings: [request.worker, request.token, '60 seconds', ...claimable.bindings, 16],
      returnsRows: true,
    });
  });

  it('SQL Server: UPDATE through an ordered TOP (n) CTE read WITH (UPDLOCK, READPAST, ROWLOCK), OUTPUT of the columns idem reads', () => {
    const statement = ledgerClaimStatement(mssqlDialect, request);
    const claimable = claimableLedgerRows(mssqlDialect, request);
    expect(statement.sql).toBe(
      'with claimable as (select top (?) * from [post_ledger] with (updlock, readpast, rowlock) where ' +
        `${claimable.sql} order by [id]) update claimable set [claimed_by] = ?, [claim_token] = ?, [claim_expires_at] = dateadd(millisecond, ?, sysutcdatetime()) output ${OUTPUT};`,
    );
    expect(statement.returnsRows).toBe(true);
    // knex turns the 9 `?` into tedious parameters @p0…@p8, in the order the statement binds them.
    const native = mssql.raw(statement.sql, [...statement.bindings]).toSQL().toNative();
    expect(native.sql).toContain('select top (@p0) * from [post_ledger] with (updlock, readpast, rowlock)');
    expect(native.sql).toContain(
      "job_name = @p1 and run_key = @p2 and destination = @p3 and status = 'pending' and (claim_expires_at is null or claim_expires_at < dateadd(millisecond, @p4, sysutcdatetime())) and id > @p5",
    );
    expect(native.sql).toContain(`set [claimed_by] = @p6, [claim_token] = @p7, [claim_expires_at] = dateadd(millisecond, @p8, sysutcdatetime()) output ${OUTPUT};`);
    expect(native.bindings).toEqual([16, 'online-retail-invoices', '2010-12-01', 'sandbox-accounting', -25_000, 40, request.worker, request.token, 60_000]);
  });
});
