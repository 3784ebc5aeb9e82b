import knexFactory from 'knex';
import { afterAll, describe, expect, it } from 'vitest';
import { columnSpecSource } from '../../src/column/column-spec-source.ts';
import { column, type ColumnSpec } from '../../src/column/column-type.ts';
import { mssqlColumnTypeName, mssqlTypeNameOf } from '../../src/dialect/mssql/mssql-table-columns.ts';
import { addMssqlColumn } from '../../src/dialect/mssql/mssql-types.ts';
import { mysqlColumnTypeName } from '../../src/dialect/mysql/mysql-table-columns.ts';
import { postgresColumnTypeName } from '../../src/dialect/postgres/postgres-table-columns.ts';
import { sqliteColumnTypeName } from '../../src/dialect/sqlite/sqlite-table-columns.ts';
import { migrationSource } from '../../src/migration/make-migration.ts';
import { DateTime } from 'luxon';

const SPECS: Record<string, ColumnSpec> = {
  text: column.text(),
  code: column.text({ maxLength: 20, nullable: true }),
  qty: column.integer(),
  price: column.decimal(10, 8),
  day: column.date(),
  at: column.instant(),
  flag: column.boolean(),
  doc: column.json(),
};

describe('the type each adapter creates, as its catalog reports it', () => {
  it('names one type per spec on every dialect', () => {
    const names = (f: (name: string, spec: ColumnSpec) => string) => Object.fromEntries(Object.entries(SPECS).map(([n, s]) => [n, f(n, s)]));
    expect(names((_, s) => postgresColumnTypeName(s))).toEqual({
      text: 'text', code: 'character varying(20)', qty: 'bigint', price: 'numeric(10,8)', day: 'date', at: 'timestamp(3) with time zone', flag: 'boolean', doc: 'text',
    });
    expect(names((_, s) => mysqlColumnTypeName(s))).toEqual({
      text: 'longtext', code: 'varchar(20)', qty: 'bigint', price: 'decimal(10,8)', day: 'date', at: 'datetime(3)', flag: 'tinyint(1)', doc: 'longtext',
    });
    expect(names((_, s) => sqliteColumnTypeName(s))).toEqual({
      text: 'text', code: 'text', qty: 'integer', price: 'text', day: 'text', at: 'text', flag: 'integer', doc: 'text',
    });
    expect(names(mssqlColumnTypeName)).toEqual({
      text: 'nvarchar(max)', code: 'nvarchar(20)', qty: 'bigint', price: 'decimal(10,8)', day: 'date', at: 'datetime2(3)', flag: 'bit', doc: 'nvarchar(max)',
    });
  });

  it('reads SQL Server sys.columns facts as the same names (max_length in bytes, -1 for max)', () => {
    expect(mssqlTypeNameOf({ type: 'nvarchar', max_length: -1, precision: 0, scale: 0 })).toBe('nvarchar(max)');
    expect(mssqlTypeNameOf({ type: 'nvarchar', max_length: 40, precision: 0, scale: 0 })).toBe('nvarchar(20)');
    expect(mssqlTypeNameOf({ type: 'decimal', max_length: 9, precision: 10, scale: 8 })).toBe('decimal(10,8)');
    expect(mssqlTypeNameOf({ type: 'datetime2', max_length: 7, precision: 23, scale: 3 })).toBe('datetime2(3)');
    expect(mssqlTypeNameOf({ type: 'bigint', max_length: 8, precision: 19, scale: 0 })).toBe('bigint');
  });
});

describe('SQL Server: the ALTER statements alterColumns compiles through knex', () => {
  const compiler = knexFactory({ client: 'mssql' });
  afterAll(() => compiler.destroy());

  it('alters a column to its exact type with the binary collation, and adds one nullable', () => {
    const sql = compiler.schema
      .alterTable('prices', (t) => {
        addMssqlColumn(t, 'note', { ...column.text(), nullable: true });
        addMssqlColumn(t, 'qty', column.decimal(12, 2)).alter();
      })
      .toString();
    expect(sql).toContain('ALTER TABLE [prices] ADD [note] nvarchar(max) collate Latin1_General_100_BIN2 null');
    expect(sql).toContain('ALTER TABLE [prices] ALTER COLUMN [qty] decimal(12, 2) not null');
  });
});

describe('idem migrate --make: the migration source', () => {
  it('declares each change with the column builder a pipeline uses', () => {
    expect(columnSpecSource(column.decimal(12, 2, { nullable: true }))).toBe('column.decimal(12, 2, { nullable: true })');
    expect(columnSpecSource(column.text({ maxLength: 20 }))).toBe('column.text({ maxLength: 20 })');
    expect(columnSpecSource(column.instant())).toBe('column.instant()');
  });

  it('writes alterColumns per table, a down that drops what it added, and notes what needs a decision', () => {
    const pipeline = { name: 'prices', tables: { staging: 'stg_prices', target: 'prices' }, columns: { qty: column.decimal(12, 2), note: column.text() }, derived: [], children: [] } as never;
    const base = { pipeline: 'prices', role: 'target', table: 'prices' } as const;
    const source = migrationSource([pipeline], [
      { ...base, kind: 'changed-column', column: 'qty', declared: column.decimal(12, 2), expectedType: { type: 'numeric(12,2)', nullable: false }, live: { type: 'bigint', nullable: false } },
      { ...base, kind: 'missing-column', column: 'note', declared: column.text(), expectedType: { type: 'text', nullable: false } },
      { ...base, kind: 'extra-column', column: 'old', live: { type: 'text', nullable: true } },
    ], DateTime.fromISO('2026-12-01T19:00:00Z'));
    expect(source).toContain("import { column, type MigrationContext } from 'idem';");
    expect(source).toContain('Written by `idem migrate --make` at 2026-12-01T19:00:00Z');
    expect(source).toContain(" *   prices  qty     column.decimal(12, 2)  numeric(12,2) not null  bigint not null");
    expect(source).toContain(`  await idem.alterColumns('prices', {
    add: {
      note: column.text(),
    },
    alter: {
      qty: column.decimal(12, 2),
    },
    drop: ['old'],
    // The value of each new NOT NULL column in the rows already in the table (a canonical value of its
    // type): added nullable, filled, then made NOT NULL. Left undefined, a table with rows is refused.
    fill: {
      note: undefined,
    },
  });`);
    expect(source).toContain("  await idem.alterColumns('prices', { drop: ['note'] });");
    expect(source).toContain('A new NOT NULL column is added nullable, filled with its `fill` value, then made NOT NULL');
    expect(source).toContain('Dropped columns lose their values');
    expect(source).toContain("`down` does not change them back");
  });

  it('a new derived table with scopeFrom: the table, then the index on the target column every rebuild of a date selects by; down drops both', () => {
    const derived = { table: 'daily_totals', scope: 'business_date', scopeFrom: 'invoiced_at', columns: { business_date: column.date(), total: column.decimal(16, 3) } };
    const pipeline = { name: 'invoices', tables: { staging: 'stg_invoices', target: 'invoices' }, columns: { invoiced_at: column.instant() }, derived: [derived], children: [] } as never;
    const source = migrationSource([pipeline], [{ pipeline: 'invoices', role: 'derived', table: 'daily_totals', kind: 'missing-table' }], DateTime.fromISO('2026-12-07T14:00:00Z'));
    const up = source.slice(source.indexOf('export async function up'), source.indexOf('export async function down'));
    const down = source.slice(source.indexOf('export async function down'));
    expect(up.indexOf("await idem.createDerivedTable({\n    table: 'daily_totals',")).toBeGreaterThan(0);
    expect(up.indexOf("await idem.createScopeIndex({ table: 'invoices', column: 'invoiced_at' });")).toBeGreaterThan(up.indexOf('createDerivedTable'));
    expect(down).toContain("  await idem.dropScopeIndex({ table: 'invoices', column: 'invoiced_at' });\n  await idem.dropTables(['daily_totals']);");
    // Without scopeFrom (a derived table of --date runs only), no index on the target.
    const dated = migrationSource([{ ...(pipeline as object), derived: [{ ...derived, scopeFrom: undefined }] } as never], [{ pipeline: 'invoices', role: 'derived', table: 'daily_totals', kind: 'missing-table' }], DateTime.fromISO('2026-12-07T14:00:00Z'));
    expect(dated).toContain('createDerivedTable');
    expect(dated).not.toContain('ScopeIndex');
  });
});
