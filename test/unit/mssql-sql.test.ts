import knexFactory, { type Knex } from 'knex';
import { TYPES } from 'tedious';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { loadConfig } from '../../src/config/load-config.ts';
import { redactUrl } from '../../src/config/redact-url.ts';
import { createDialectAdapter } from '../../src/dialect/create-dialect-adapter.ts';
import { insertMissingSql } from '../../src/dialect/insert-missing-sql.ts';
import {
  APPLOCK_HOLDER_SQL,
  APPLOCK_MODE_SQL,
  GET_APPLOCK_SQL,
  interpretGetAppLockResult,
  mssqlAppLockResource,
  RELEASE_APPLOCK_SQL,
  tryAcquireMssqlAppLock,
} from '../../src/dialect/mssql/mssql-app-lock.ts';
import { mssqlInsertQueries } from '../../src/dialect/mssql/mssql-bulk-load.ts';
import { mssqlMapBinding, mssqlTediousConfig, parseMssqlUrl } from '../../src/dialect/mssql/mssql-connection-config.ts';
import { MssqlDialect } from '../../src/dialect/mssql/mssql-dialect.ts';
import { mssqlInsertChunkRows } from '../../src/dialect/mssql/mssql-insert-chunk-rows.ts';
import { quoteMssqlIdentifier } from '../../src/dialect/mssql/mssql-quote-identifier.ts';
import { addMssqlColumn, mssqlBulkColumnType, mssqlColumnType, toMssqlBulkValue } from '../../src/dialect/mssql/mssql-types.ts';
import { mssqlUpdateChangedSql, mssqlUpsert, rowCountOf, withRowCount } from '../../src/dialect/mssql/mssql-upsert.ts';
import { UsageError } from '../../src/errors/usage-error.ts';
import { canonicalValue } from '../../src/column/canonical-value.ts';
import { column, type ColumnSpec } from '../../src/column/column-type.ts';

const plan = { staging: 'stg_x', target: 'x', columns: ['a', 'b'], runKey: '2010-12-01', now: new Date('2026-01-01T00:00:00.000Z') };
const URL = 'mssql://etl:S3cret%21@db.internal:1433/etl?trustServerCertificate=true';
const dialect = new MssqlDialect(URL);
/** knex's mssql compiler, never connected (knex connects on the first query only). */
const compiler = knexFactory({ client: 'mssql' });

afterAll(async () => {
  await compiler.destroy();
});

describe('SQL Server upsert SQL', () => {
  it('updates only rows that differ, null-safely, by EXISTS (SELECT s.… EXCEPT SELECT t.…), with bracket quoting', () => {
    const sql = mssqlUpdateChangedSql(plan);
    expect(sql).toBe(
      'update t set [a] = s.[a], [b] = s.[b], [row_hash] = s.[row_hash], [last_changed_run_key] = ?, [updated_at] = ? ' +
        'from [x] as t inner join [stg_x] as s on t.[source_system] = s.[source_system] and t.[source_reference] = s.[source_reference] ' +
        'where exists (select s.[a], s.[b], s.[row_hash] except select t.[a], t.[b], t.[row_hash])',
    );
    expect(sql).not.toContain('"');
  });

  it('inserts missing keys with the shared INSERT … WHERE NOT EXISTS, bracket-quoted', () => {
    expect(insertMissingSql(plan, quoteMssqlIdentifier)).toBe(
      'insert into [x] ([source_system], [source_reference], [a], [b], [row_hash], [first_run_key], [last_changed_run_key], [created_at], [updated_at]) ' +
        'select s.[source_system], s.[source_reference], s.[a], s.[b], s.[row_hash], ?, ?, ?, ? from [stg_x] s ' +
        'where not exists (select 1 from [x] t where t.[source_system] = s.[source_system] and t.[source_reference] = s.[source_reference])',
    );
  });

  it('asks for @@ROWCOUNT in the same batch (knex returns no row count for raw mssql DML) and reads it back', () => {
    const batch = withRowCount(mssqlUpdateChangedSql(plan));
    expect(batch.endsWith('; select @@rowcount as [row_count];')).toBe(true);
    // The `?` become tedious parameters @p0, @p1; nothing else in the SQL is a placeholder.
    const native = compiler.raw(batch, ['2010-12-01', plan.now]).toSQL().toNative();
    expect(native.sql).toContain('[last_changed_run_key] = @p0, [updated_at] = @p1');
    expect(native.bindings).toHaveLength(2);
    expect(rowCountOf([{ row_count: 3 }])).toBe(3);
    expect(() => rowCountOf([])).toThrow(/expected a row count/);
  });

  it('runs UPDATE then INSERT in the caller transaction and takes the counts from the statements', async () => {
    const calls: { sql: string; bindings: unknown[] }[] = [];
    const counts = [2, 5];
    const trx = { raw: async (sql: string, bindings: unknown[]) => (calls.push({ sql, bindings }), [{ row_count: counts[calls.length - 1] }]) };
    expect(await mssqlUpsert(trx as unknown as Knex.Transaction, plan)).toEqual({ updated: 2, inserted: 5 });
    expect(calls[0]!.sql.startsWith('update t set')).toBe(true);
    expect(calls[0]!.bindings).toEqual(['2010-12-01', plan.now]);
    expect(calls[1]!.sql.startsWith('insert into [x]')).toBe(true);
    expect(calls[1]!.bindings).toEqual(['2010-12-01', '2010-12-01', plan.now, plan.now]);
  });

  it('deletes superseded staging rows with the shared correlated DELETE and counts them', async () => {
    let seen = '';
    const db = { raw: async (sql: string) => ((seen = sql), [{ row_count: 4 }]) };
    expect(await dialect.deleteSupersededStagingRows(db as unknown as Knex, 'stg_x')).toBe(4);
    expect(seen).toBe(
      'delete from [stg_x] where exists (select 1 from [stg_x] later where later.[source_system] = [stg_x].[source_system] ' +
        'and later.[source_reference] = [stg_x].[source_reference] and later.[seq] > [stg_x].[seq]); select @@rowcount as [row_count];',
    );
  });
});

describe('SQL Server app lock', () => {
  it('asks sp_getapplock for an exclusive, session-owned lock without waiting, and returns its code', () => {
    expect(GET_APPLOCK_SQL).toContain("exec @result = sp_getapplock @Resource = @resource, @LockMode = 'Exclusive', @LockOwner = 'Session', @LockTimeout = 0;");
    expect(GET_APPLOCK_SQL).toContain('select @result as result;');
    expect(RELEASE_APPLOCK_SQL).toContain("exec @result = sp_releaseapplock @Resource = @resource, @LockOwner = 'Session';");
    expect(APPLOCK_MODE_SQL).toBe("select applock_mode('public', @resource, 'Session') as mode;");
    expect(APPLOCK_HOLDER_SQL).toContain("l.resource_type = N'APPLICATION'");
    expect(APPLOCK_HOLDER_SQL).toContain('join sys.dm_exec_sessions s on s.session_id = l.request_session_id');
    expect(APPLOCK_HOLDER_SQL).toContain('s.program_name');
  });

  it('maps return codes: >= 0 granted, -1 held elsewhere, anything else an error naming code and meaning', () => {
    expect(interpretGetAppLockResult(0)).toEqual({ kind: 'granted' });
    expect(interpretGetAppLockResult(1)).toEqual({ kind: 'granted' });
    expect(interpretGetAppLockResult(-1)).toEqual({ kind: 'held' });
    expect(interpretGetAppLockResult(-2)).toEqual({ kind: 'error', message: 'sp_getapplock returned -2: the lock request was cancelled' });
    expect(interpretGetAppLockResult(-3)).toEqual({ kind: 'error', message: 'sp_getapplock returned -3: the lock request was chosen as a deadlock victim' });
    expect(interpretGetAppLockResult(-999)).toEqual({ kind: 'error', message: 'sp_getapplock returned -999: parameter validation or other call error' });
    expect(interpretGetAppLockResult(-7)).toEqual({ kind: 'error', message: 'sp_getapplock returned -7: an undocumented failure' });
  });

  it('keeps names up to 255 characters as they are (case-sensitive) and hashes longer ones into 255', () => {
    expect(mssqlAppLockResource('idem:Online-Retail')).toBe('idem:Online-Retail');
    const long = `idem:${'x'.repeat(300)}`;
    const other = `${long}y`;
    expect(mssqlAppLockResource(long)).toHaveLength(255);
    expect(mssqlAppLockResource(long)).toBe(mssqlAppLockResource(long));
    expect(mssqlAppLockResource(other)).not.toBe(mssqlAppLockResource(long));
    expect(mssqlAppLockResource('a'.repeat(255))).toBe('a'.repeat(255));
  });

  it('names the holder through program_name: the lock session carries the owner as its appName', () => {
    const config = mssqlTediousConfig(parseMssqlUrl(URL), { appName: `idem ${'run 2010-12-01 on host-a pid 4242 '.repeat(6)}`, requestTimeoutMs: 30_000 });
    expect(config.options?.appName).toHaveLength(128);
    expect(config.options?.appName?.startsWith('idem run 2010-12-01 on host-a pid 4242')).toBe(true);
    expect(config.options).toMatchObject({ useUTC: true, port: 1433, database: 'etl', trustServerCertificate: true, encrypt: true, requestTimeout: 30_000 });
  });

  it('rejects at once (no hang, no stray error event) when the server cannot be reached', async () => {
    const unreachable = parseMssqlUrl('mssql://sa:x@127.0.0.1:1/master?encrypt=false');
    await expect(tryAcquireMssqlAppLock(unreachable, 1000, { name: 'idem:x', owner: 'run A', leaseMs: 1 })).rejects.toThrow(/ECONNREFUSED|Failed to connect/);
  });
});

describe('SQL Server staging chunks (fallback INSERT path)', () => {
  it('sizes chunks as min(1000, floor(2099 / columns))', () => {
    expect(mssqlInsertChunkRows(1)).toBe(1000);
    expect(mssqlInsertChunkRows(3)).toBe(699);
    expect(mssqlInsertChunkRows(12)).toBe(174);
    expect(mssqlInsertChunkRows(20)).toBe(104);
    expect(mssqlInsertChunkRows(2098)).toBe(1);
    // One row of 2100 columns is already over the limit: no chunk size works.
    expect(() => mssqlInsertChunkRows(2100)).toThrow(RangeError);
    expect(() => mssqlInsertChunkRows(0)).toThrow(RangeError);
  });

  it('a stage of 200 rows × 12 columns never emits a statement with more than 2,100 parameters or 1,000 rows', () => {
    const names = Array.from({ length: 12 }, (_, i) => `c${i}`);
    const columns = names.map((name) => ({ name, spec: column.text({ nullable: true }) }));
    const rows = Array.from({ length: 200 }, (_, r) => names.map((_, c) => `r${r}c${c}`));
    const statements = mssqlInsertQueries(compiler, 'stg_x', columns, rows).map((q) => q.toSQL());
    expect(statements.length).toBe(2);
    let total = 0;
    for (const statement of statements) {
      const rowsInStatement = statement.bindings.length / 12;
      expect(statement.bindings.length).toBeLessThanOrEqual(2100);
      expect(statement.bindings.length).toBeLessThanOrEqual(2098); // sp_executesql's own 2 parameters fit too
      expect(rowsInStatement).toBeLessThanOrEqual(1000);
      expect(statement.sql.startsWith('insert into [stg_x] ([c0], [c1]')).toBe(true);
      total += rowsInStatement;
    }
    expect(total).toBe(200);
    expect(statements[0]!.bindings.slice(0, 2)).toEqual(['r0c0', 'r0c1']);
  });

  it('caps a narrow table at 1,000 rows per VALUES list', () => {
    const columns = [{ name: 'c0', spec: column.integer() }];
    const rows = Array.from({ length: 2500 }, (_, r) => [r]);
    const sizes = mssqlInsertQueries(compiler, 'stg_x', columns, rows).map((q) => q.toSQL().bindings.length);
    expect(sizes).toEqual([1000, 1000, 500]);
  });
});

/** One value of every column type, canonical, with what tedious hands back after a round trip. */
const ROUND_TRIPS: { spec: ColumnSpec; canonical: unknown; read: (driver: unknown) => unknown }[] = [
  { spec: column.text(), canonical: 'Straße  ', read: (v) => v },
  { spec: column.text({ maxLength: 10, nullable: true }), canonical: null, read: () => null },
  { spec: column.integer(), canonical: 9007199254740991, read: (v) => String(v) }, // bigint comes back as a string
  { spec: column.integer(), canonical: -5, read: (v) => String(v) },
  { spec: column.decimal(15, 2), canonical: '9999999999999.99', read: (v) => Number.parseFloat(v as string) }, // decimals come back as numbers
  { spec: column.decimal(14, 3), canonical: '-0.100', read: (v) => Number.parseFloat(v as string) },
  { spec: column.decimal(10, 0), canonical: '42', read: (v) => Number.parseFloat(v as string) },
  // tedious (useUTC) reads a date as the Date at UTC midnight of that day.
  { spec: column.date(), canonical: '2026-03-08', read: (v) => new Date(`${v as string}T00:00:00.000Z`) },
  { spec: column.date(), canonical: '0001-01-01', read: (v) => new Date(`${v as string}T00:00:00.000Z`) },
  { spec: column.instant(), canonical: '2026-03-08T06:59:59.001Z', read: (v) => new Date((v as Date).getTime()) },
  { spec: column.boolean(), canonical: true, read: (v) => v },
  { spec: column.boolean(), canonical: false, read: (v) => v },
  { spec: column.json({ nullable: true }), canonical: { b: 1, a: [1, 'x', null] }, read: (v) => v },
];

describe('SQL Server types', () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it('maps every column type to a SQL Server type that holds it exactly, text binary-collated', () => {
    expect(mssqlColumnType('t', column.text({ maxLength: 200 }))).toBe('nvarchar(200) collate Latin1_General_100_BIN2');
    expect(mssqlColumnType('t', column.text())).toBe('nvarchar(max) collate Latin1_General_100_BIN2');
    expect(mssqlColumnType('t', column.text({ maxLength: 4001 }))).toBe('nvarchar(max) collate Latin1_General_100_BIN2');
    expect(mssqlColumnType('i', column.integer())).toBe('bigint');
    expect(mssqlColumnType('f', column.float())).toBe('float(53)');
    expect(mssqlBulkColumnType('f', column.float({ nullable: true })).options).toEqual({ nullable: true });
    expect(mssqlColumnType('d', column.decimal(14, 3))).toBe('decimal(14, 3)');
    expect(mssqlColumnType('d', column.date())).toBe('date');
    expect(mssqlColumnType('i', column.instant())).toBe('datetime2(3)');
    expect(mssqlColumnType('b', column.boolean())).toBe('bit');
    expect(mssqlColumnType('j', column.json())).toBe('nvarchar(max) collate Latin1_General_100_BIN2');
  });

  it('creates columns with knex as those types, with NULL / NOT NULL', () => {
    const sql = compiler.schema
      .createTable('t', (t) => {
        addMssqlColumn(t, 'label', column.text({ nullable: true }));
        addMssqlColumn(t, 'total', column.decimal(14, 3));
        addMssqlColumn(t, 'at', column.instant());
      })
      .toSQL()[0]!.sql;
    expect(sql).toBe('CREATE TABLE [t] ([label] nvarchar(max) collate Latin1_General_100_BIN2 null, [total] decimal(14, 3) not null, [at] datetime2(3) not null)');
  });

  it('refuses decimals wider than 15 digits: tedious carries them as JS numbers', () => {
    const wide = column.decimal(16, 2);
    expect(() => mssqlColumnType('amount', wide)).toThrow(UsageError);
    expect(() => mssqlColumnType('amount', wide)).toThrow(/decimal\(16, 2\) is not supported on SQL Server/);
    expect(() => mssqlBulkColumnType('amount', wide)).toThrow(UsageError);
    expect(() => dialect.fromDriverValue(wide, 12.5)).toThrow(UsageError);
    // Why: one digit more and the double tedious uses is no longer exact.
    expect(String(Number.parseFloat('9007199254740993'))).not.toBe('9007199254740993');
  });

  it.each(ROUND_TRIPS.map((t) => [t.spec.type, t] as const))('round-trips %s values exactly (toDriverValue → driver → fromDriverValue)', (_type, t) => {
    const canonical = canonicalValue('c', t.spec, t.canonical);
    const driver = dialect.toDriverValue(t.spec, canonical);
    expect(dialect.fromDriverValue(t.spec, driver === null ? null : t.read(driver))).toEqual(canonical);
  });

  it('binds instants as Date (datetime2 through mapBinding, never the rounding legacy datetime), dates and decimals as text', async () => {
    const at = dialect.toDriverValue(column.instant(), '2026-03-08T06:59:59.001Z');
    expect(at).toEqual(new Date('2026-03-08T06:59:59.001Z'));
    expect(mssqlMapBinding(at)).toEqual({ value: at, type: TYPES.DateTime2 });
    expect(mssqlMapBinding('2026-03-08')).toBeUndefined();
    expect(dialect.toDriverValue(column.date(), '2026-03-08')).toBe('2026-03-08');
    expect(dialect.toDriverValue(column.decimal(14, 3), '1.500')).toBe('1.500');
    // knex's mssql client takes mapBinding from idem's connection config.
    const knex = knexFactory(dialect.knexConfig());
    try {
      const client = knex.client as unknown as { _typeForBinding(value: unknown): [unknown, unknown] };
      expect(client._typeForBinding(at)).toEqual([at, TYPES.DateTime2]);
      expect(client._typeForBinding('x')).toEqual(['x', TYPES.NVarChar]);
    } finally {
      await knex.destroy();
    }
  });

  it('never uses local-time getters: a date at UTC midnight and one just before the next UTC midnight keep their day', () => {
    const local = ['getFullYear', 'getMonth', 'getDate', 'getHours', 'getMinutes', 'getSeconds', 'getDay', 'getTimezoneOffset'] as const;
    const spies = local.map((name) => vi.spyOn(Date.prototype, name));
    const day = column.date();
    expect(dialect.fromDriverValue(day, new Date(Date.UTC(2026, 2, 8)))).toBe('2026-03-08');
    expect(dialect.fromDriverValue(day, new Date(Date.UTC(2026, 2, 8, 23, 59, 59, 999)))).toBe('2026-03-08');
    expect(dialect.fromDriverValue(column.instant(), new Date(Date.UTC(2026, 2, 8, 0, 0, 0, 1)))).toBe('2026-03-08T00:00:00.001Z');
    expect(toMssqlBulkValue(day, '2026-03-08')).toEqual(new Date(Date.UTC(2026, 2, 8)));
    for (const spy of spies) expect(spy).not.toHaveBeenCalled();
  });

  it('bulk-loads a date as the same calendar day and an instant to the millisecond (tedious with useUTC)', () => {
    const options = { useUTC: true } as never;
    const daysFrom0001 = (iso: string): number => (Date.parse(`${iso}T00:00:00Z`) - Date.parse('0001-01-01T00:00:00Z')) / 86_400_000;
    const dateValue = TYPES.Date.validate(toMssqlBulkValue(column.date(), '2026-03-08'), undefined, options);
    const [dateBytes] = [...TYPES.Date.generateParameterData({ value: dateValue }, options)];
    expect(dateBytes!.readUIntLE(0, 3)).toBe(daysFrom0001('2026-03-08'));

    const at = TYPES.DateTime2.validate(dialect.toDriverValue(column.instant(), '2026-03-08T06:59:59.001Z'), undefined, options);
    const [atBytes] = [...TYPES.DateTime2.generateParameterData({ value: at, scale: 3 }, options)];
    expect(atBytes!.readUInt32LE(0)).toBe(((6 * 60 + 59) * 60 + 59) * 1000 + 1); // ms since midnight UTC at scale 3
    expect(atBytes!.readUIntLE(4, 3)).toBe(daysFrom0001('2026-03-08'));
  });

  it('bulk-loads decimals of up to 15 digits exactly (tedious scales the parsed number to an integer)', () => {
    for (const [text, precision, scale] of [['9999999999999.99', 15, 2], ['-12345678901.234', 14, 3], ['0.001', 10, 3]] as const) {
      const value = TYPES.Decimal.validate(text, undefined);
      const [bytes] = [...TYPES.Decimal.generateParameterData({ value, precision, scale }, {} as never)];
      const digits = precision <= 9 ? BigInt(bytes!.readUInt32LE(1)) : bytes!.readBigUInt64LE(1);
      expect(`${bytes![0] === 0 ? '-' : ''}${digits}`).toBe(text.replace('.', '').replace(/^(-?)0+(?=\d)/, '$1'));
    }
  });

  it('declares bulk-load columns with the same type and nullability as the table', () => {
    expect(mssqlBulkColumnType('k', column.text({ maxLength: 200 }))).toEqual({ type: TYPES.NVarChar, options: { nullable: false, length: 200 } });
    expect(mssqlBulkColumnType('t', column.text({ nullable: true }))).toEqual({ type: TYPES.NVarChar, options: { nullable: true, length: Infinity } });
    expect(mssqlBulkColumnType('i', column.integer({ nullable: true }))).toEqual({ type: TYPES.BigInt, options: { nullable: true } });
    expect(mssqlBulkColumnType('d', column.decimal(14, 3))).toEqual({ type: TYPES.Decimal, options: { nullable: false, precision: 14, scale: 3 } });
    expect(mssqlBulkColumnType('d', column.date())).toEqual({ type: TYPES.Date, options: { nullable: false } });
    expect(mssqlBulkColumnType('a', column.instant())).toEqual({ type: TYPES.DateTime2, options: { nullable: false, scale: 3 } });
    expect(mssqlBulkColumnType('b', column.boolean())).toEqual({ type: TYPES.Bit, options: { nullable: false } });
    expect(mssqlBulkColumnType('j', column.json())).toEqual({ type: TYPES.NVarChar, options: { nullable: false, length: Infinity } });
  });
});

describe('SQL Server URLs and settings', () => {
  it('parses mssql:// with the default port and percent-decoded credentials', () => {
    expect(parseMssqlUrl('mssql://sa:p%40ss%3Aw0rd%2F!@127.0.0.1/etl')).toEqual({
      server: '127.0.0.1',
      port: 1433,
      user: 'sa',
      password: 'p@ss:w0rd/!',
      database: 'etl',
      encrypt: true,
      trustServerCertificate: false,
      stagingLoad: 'bulk',
    });
  });

  it('parses sqlserver:// with a port, TLS parameters, an IPv6 host and no database', () => {
    expect(parseMssqlUrl('sqlserver://etl:pw@db.internal:14330/etl?encrypt=false&trustServerCertificate=true&stagingLoad=insert')).toMatchObject({
      server: 'db.internal',
      port: 14330,
      encrypt: false,
      trustServerCertificate: true,
      stagingLoad: 'insert',
    });
    expect(parseMssqlUrl('mssql://sa:pw@[::1]')).toMatchObject({ server: '::1', port: 1433, database: undefined });
  });

  it('refuses unknown or malformed parameters and a missing user', () => {
    expect(() => parseMssqlUrl('mssql://sa:pw@h/db?trustservercertificate=true')).toThrow(/parameter trustservercertificate is not supported/);
    expect(() => parseMssqlUrl('mssql://sa:pw@h/db?encrypt=yes')).toThrow(/encrypt must be true or false/);
    expect(() => parseMssqlUrl('mssql://sa:pw@h/db?stagingLoad=copy')).toThrow(/stagingLoad must be bulk or insert/);
    expect(() => parseMssqlUrl('mssql://h/db')).toThrow(UsageError);
  });

  it('redacts the password, special characters included', () => {
    expect(redactUrl('mssql://sa:p%40ss%3Aw0rd!@127.0.0.1:1433/master')).toBe('mssql://sa:***@127.0.0.1:1433/master');
    expect(redactUrl('sqlserver://sa:p@ss:w0rd/x@db:1433/etl?encrypt=true')).toBe('sqlserver://sa:***@db:1433/etl?encrypt=true');
  });

  it('gives knex the mssql client over tedious with useUTC, TLS settings, the request timeout and a pool for lock + work', async () => {
    const config = dialect.knexConfig();
    expect(config.client).toBe('mssql');
    expect((config.pool as { max: number }).max).toBeGreaterThanOrEqual(2);
    const knex = knexFactory(config);
    try {
      // What knex's mssql client hands to tedious' Connection.
      const tedious = (knex.client as unknown as { _generateConnection(): Record<string, any> })._generateConnection();
      expect(tedious.server).toBe('db.internal');
      expect(tedious.authentication.options).toMatchObject({ userName: 'etl', password: 'S3cret!' });
      expect(tedious.options).toMatchObject({ database: 'etl', port: 1433, useUTC: true, encrypt: true, trustServerCertificate: true, requestTimeout: 30_000 });
    } finally {
      await knex.destroy();
    }
  });

  it('reads IDEM_MSSQL_REQUEST_TIMEOUT_MS (default 30000) and reports it through describeSettings', async () => {
    expect(loadConfig({}, '/p').mssqlRequestTimeoutMs).toBe(30_000);
    expect(loadConfig({ IDEM_MSSQL_REQUEST_TIMEOUT_MS: '60000' }, '/p').mssqlRequestTimeoutMs).toBe(60_000);
    expect(() => loadConfig({ IDEM_MSSQL_REQUEST_TIMEOUT_MS: '-1' }, '/p')).toThrow(/IDEM_MSSQL_REQUEST_TIMEOUT_MS/);
    const adapter = await createDialectAdapter('sqlserver://sa:pw@db/etl', '/p', { mssqlRequestTimeoutMs: 5000 });
    expect(adapter.name).toBe('mssql');
    expect(adapter.describeSettings()).toEqual({ requestTimeoutMs: 5000, stagingLoad: 'bulk' });
    expect((await createDialectAdapter('mssql://sa:pw@db/etl', '/p')).describeSettings()).toEqual({ requestTimeoutMs: 30_000, stagingLoad: 'bulk' });
    expect((await createDialectAdapter('sqlite:var/x.sqlite3', '/p')).describeSettings()).toEqual({});
  });
});
