import knexFactory from 'knex';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load-config.ts';
import { MssqlDialect } from '../../src/dialect/mssql/mssql-dialect.ts';
import { isRejectedMssqlStatement, MSSQL_SNAPSHOT_READ } from '../../src/dialect/mssql/mssql-snapshot-read.ts';
import { MYSQL_SNAPSHOT_READ } from '../../src/dialect/mysql/mysql-snapshot-read.ts';
import { POSTGRES_SNAPSHOT_READ } from '../../src/dialect/postgres/postgres-snapshot-read.ts';
import { SQLITE_SNAPSHOT_READ } from '../../src/dialect/sqlite/sqlite-snapshot-read.ts';
import { UsageError } from '../../src/errors/usage-error.ts';
import { column, definePipeline, sqlSource } from '../../src/index.ts';
import { columnsRowSchema } from '../../src/source/columns-row-schema.ts';
import { buildSourceQuery } from '../../src/source/sql/build-source-query.ts';
import { businessDateInstants } from '../../src/source/sql/sql-run-range.ts';
import { SQL_SOURCE_KIND } from '../../src/source/sql/sql-source-kind.ts';

const offline = knexFactory({ client: 'pg' });
const mssqlCompiler = knexFactory({ client: 'mssql' });
afterAll(async () => {
  await offline.destroy();
  await mssqlCompiler.destroy();
});

describe("a business date's range of instants [start, end) in the pipeline's time zone", () => {
  const hours = (range: { startsAt: string; endsAt: string }) => (Date.parse(range.endsAt) - Date.parse(range.startsAt)) / 3_600_000;

  it('is 24 hours on an ordinary day, 23 when the clocks spring forward and 25 when they fall back', () => {
    expect(businessDateInstants('2010-12-02', 'Europe/London')).toEqual({ startsAt: '2010-12-02T00:00:00.000Z', endsAt: '2010-12-03T00:00:00.000Z' });
    expect(businessDateInstants('2011-03-27', 'Europe/London')).toEqual({ startsAt: '2011-03-27T00:00:00.000Z', endsAt: '2011-03-27T23:00:00.000Z' });
    expect(businessDateInstants('2011-10-30', 'Europe/London')).toEqual({ startsAt: '2011-10-29T23:00:00.000Z', endsAt: '2011-10-31T00:00:00.000Z' });
    expect([hours(businessDateInstants('2026-03-08', 'America/New_York')), hours(businessDateInstants('2026-11-01', 'America/New_York'))]).toEqual([23, 25]);
    expect(businessDateInstants('2026-07-01', 'Asia/Kolkata')).toEqual({ startsAt: '2026-06-30T18:30:00.000Z', endsAt: '2026-07-01T18:30:00.000Z' });
  });

  it('leaves no instant between two dates: each date ends where the next starts', () => {
    for (const date of ['2011-03-26', '2011-03-27', '2011-10-29', '2011-10-30']) {
      const next = new Date(Date.parse(`${date}T12:00:00Z`) + 86_400_000).toISOString().slice(0, 10);
      expect(businessDateInstants(date, 'Europe/London').endsAt).toBe(businessDateInstants(next, 'Europe/London').startsAt);
    }
  });

  it('starts a date whose midnight does not exist at its first instant (America/Santiago, 2026-09-06)', () => {
    expect(businessDateInstants('2026-09-06', 'America/Santiago').startsAt).toBe('2026-09-06T04:00:00.000Z');
  });
});

describe('the query: a knex select builder with bound parameters, checked at import', () => {
  const range = { businessDate: '2010-12-02', start: '2010-12-02T00:00:00.000Z', end: '2010-12-03T00:00:00.000Z', startsAt: '2010-12-02T00:00:00.000Z', endsAt: '2010-12-03T00:00:00.000Z' };

  it('binds the range: the date never enters the SQL text', () => {
    const built = buildSourceQuery({ database: 'shop', query: (db, r) => db('orders').where('shipped_at', '>=', r.start).andWhere('shipped_at', '<', r.end) }, offline, range);
    expect(built).toEqual({ sql: 'select * from "orders" where "shipped_at" >= ? and "shipped_at" < ?', bindings: ['2010-12-02T00:00:00.000Z', '2010-12-03T00:00:00.000Z'] });
  });

  it('refuses a string, knex.raw, a promise, a write and a function that throws, naming what it got', () => {
    const refused = (query: (db: typeof offline) => unknown) => {
      try {
        buildSourceQuery({ database: 'shop', query: query as never }, offline, range);
        return 'accepted';
      } catch (error) {
        return (error as Error).message;
      }
    };
    expect(refused(() => "select * from orders where shipped_at >= '2010-12-02'")).toMatch(/^source\.query must return a knex query builder, .*\(got a string \("select \* from orders where shipped_at >= '2010-12-02'"\)\); a SQL string or knex\.raw could have the date written into its text$/);
    expect(refused((db) => db.raw('select 1'))).toContain('(got knex.raw(…))');
    expect(refused(() => Promise.resolve([]))).toContain('(got a promise)');
    expect(refused((db) => db('orders').insert({ order_id: '1' }))).toBe('source.query must build a select (got a insert): a source is only read');
    expect(refused(() => { throw new Error('boom'); })).toBe('source.query of database "shop" threw while building the query: boom');
  });

  it('definePipeline refuses such a query and a misspelt option when the module is imported', () => {
    const define = (source: unknown) => () =>
      definePipeline({ name: 'p', sourceSystem: 's', timeZone: 'UTC', source: source as never, key: 'id', tables: { staging: 'stg_p', target: 'p' }, columns: { n: column.integer() } });
    expect(define(sqlSource({ database: 'shop', query: (() => 'select 1') as never }))).toThrow(/source\.query must return a knex query builder/);
    expect(define({ ...sqlSource({ database: 'shop', query: (db) => db('t') }), fetchrows: 5 })).toThrow(/fetchrows/);
    expect(define(sqlSource({ database: '', query: (db) => db('t') }))).toThrow(/database/);
    expect(define(sqlSource({ database: 'shop', query: (db) => db('t') }))).not.toThrow();
  });
});

describe('IDEM_SOURCES: a SQL source database by name, on any dialect', () => {
  const sources = (value: unknown) => loadConfig({ IDEM_SOURCES: JSON.stringify(value) }, '/p').sources;

  it('takes a database URL of each dialect, with its password', () => {
    for (const url of ['sqlite:var/shop.sqlite3', 'postgres://reader:pw@db:5432/shop', 'mariadb://reader:pw@db/shop', 'mysql://db/shop', 'mssql://sa:pw@db:1433/shop']) {
      expect(sources({ shop: { url } }).shop).toEqual({ url });
    }
  });

  it('refuses headers or http overrides on a database URL, and an unknown scheme, never echoing the value', () => {
    const message = (value: unknown) => {
      try {
        sources(value);
        return 'accepted';
      } catch (error) {
        expect(error).toBeInstanceOf(UsageError);
        return (error as Error).message;
      }
    };
    expect(message({ shop: { url: 'postgres://reader:hunter2@db/shop', headers: { a: 'b' } } })).toBe('IDEM_SOURCES shop: a database URL takes no "headers" or "http" (those are an HTTP source\'s)');
    expect(message({ shop: { url: 'oracle://reader:hunter2@db/shop' } })).toBe('IDEM_SOURCES shop.url: must be an http(s) base URL (an HTTP source) or a database URL: sqlite:, postgres://, mysql://, mariadb://, mssql:// (a SQL source)');
    expect(message({ shop: { url: 'oracle://reader:hunter2@db/shop' } })).not.toContain('hunter2');
  });

  it('the kind finds its database by its own name, and says which setting is missing', () => {
    const source = sqlSource({ database: 'shop', query: (db) => db('orders') });
    const context = (url?: string) => ({ pipelineName: 'shop-orders', timeZone: 'Europe/London', config: { projectDir: '/p', sourceDir: undefined, sources: (url ? { shop: { url } } : {}) as Record<string, { url: string }> } });
    expect(SQL_SOURCE_KIND.locate(source, { kind: 'date', value: '2011-03-27', businessDate: '2011-03-27' }, context('postgres://reader:hunter2@db:5432/shop'))).toBe(
      'shop (postgres://reader:***@db:5432/shop) [2011-03-27T00:00:00.000Z, 2011-03-27T23:00:00.000Z)',
    );
    expect(SQL_SOURCE_KIND.checkLocation(source, context())).toEqual([
      'the SQL source has no database URL: set IDEM_SOURCES=\'{"shop":{"url":"postgres://user:password@host:5432/shop"}}\' (or sqlite:, mysql://, mariadb://, mssql://)',
    ]);
    expect(SQL_SOURCE_KIND.checkLocation(source, context('https://api.example.com'))).toHaveLength(1);
    expect(() => SQL_SOURCE_KIND.locate(source, { kind: 'file', value: 'file:x@sha256:0', file: '/x' }, context('sqlite:x'))).toThrow('reads a database, not a file: run it with --date YYYY-MM-DD');
  });
});

describe('values as a SQL driver gives them (the sql field form)', () => {
  it('reads 64-bit integers as digits, booleans as 1/0, JSON as text, instants as ISO text and decimals as text', () => {
    const row = columnsRowSchema({
      key: 'id',
      form: 'sql',
      timeZone: 'Europe/London',
      columns: { n: column.integer(), ok: column.boolean(), doc: column.json(), at: column.instant(), total: column.decimal(14, 3) },
    });
    expect(row.parse({ id: 7, n: '9007199254740991', ok: 1, doc: '{"a":[1]}', at: '2011-03-27T01:30:00.000Z', total: '12.500' })).toEqual({
      id: '7', n: 9007199254740991, ok: true, doc: { a: [1] }, at: '2011-03-27T01:30:00.000Z', total: '12.500',
    });
    expect(row.safeParse({ id: 7, n: '9007199254740993', ok: 0, doc: null, at: '2011-03-27T01:30:00.000Z', total: '1' }).success).toBe(false);
  });
});

describe('the snapshot read of each dialect (SQL Server checked without a server)', () => {
  it('PostgreSQL REPEATABLE READ READ ONLY with a cursor; MariaDB a consistent snapshot, read only; SQLite a read transaction, query only', () => {
    expect(POSTGRES_SNAPSHOT_READ.begin).toEqual(['BEGIN TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY']);
    expect(MYSQL_SNAPSHOT_READ.begin).toEqual(['SET TRANSACTION ISOLATION LEVEL REPEATABLE READ', 'START TRANSACTION WITH CONSISTENT SNAPSHOT, READ ONLY']);
    expect(SQLITE_SNAPSHOT_READ.begin).toEqual(['PRAGMA query_only = ON', 'BEGIN']);
    for (const steps of [POSTGRES_SNAPSHOT_READ, MYSQL_SNAPSHOT_READ, SQLITE_SNAPSHOT_READ, MSSQL_SNAPSHOT_READ]) expect(steps.end).toBe('COMMIT');
  });

  it('SQL Server: SNAPSHOT isolation set before the transaction begins; the range bound as datetime2 Dates; error 3952 (snapshot not allowed) and 207 are refusals', () => {
    expect(MSSQL_SNAPSHOT_READ.begin).toEqual(['SET TRANSACTION ISOLATION LEVEL SNAPSHOT', 'BEGIN TRANSACTION']);
    const dialect = new MssqlDialect('mssql://sa:pw@db:1433/shop');
    const start = dialect.toDriverValue({ type: 'instant', nullable: false }, '2011-03-27T00:00:00.000Z');
    expect(start).toEqual(new Date('2011-03-27T00:00:00.000Z'));
    const built = buildSourceQuery({ database: 'shop', query: (db, r) => db('orders').where('shipped_at', '>=', r.start).andWhere('shipped_at', '<', r.end) }, mssqlCompiler, {
      businessDate: '2011-03-27', start: start as Date, end: new Date('2011-03-27T23:00:00.000Z'), startsAt: '', endsAt: '',
    });
    expect(mssqlCompiler.raw(built.sql, built.bindings as never).toSQL().toNative().sql).toBe('select * from [orders] where [shipped_at] >= @p0 and [shipped_at] < @p1');
    expect(isRejectedMssqlStatement({ number: 3952, message: "Snapshot isolation transaction failed accessing database 'shop' because snapshot isolation is not allowed in this database. Use ALTER DATABASE to allow snapshot isolation." })).toBe(true);
    expect(isRejectedMssqlStatement({ originalError: { info: { number: 207 } } })).toBe(true);
    expect(isRejectedMssqlStatement({ number: 1205 })).toBe(false);
  });
});

