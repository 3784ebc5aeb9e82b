import knexFactory, { type Knex } from 'knex';
import { afterAll, describe, expect, it } from 'vitest';
import { MssqlDialect } from '../../src/dialect/mssql/mssql-dialect.ts';
import { rankedDuplicateRows } from '../../src/migration/remove-duplicate-keys.ts';

// idem duplicates' SQL as each dialect's compiler writes it, checked without a server (SQL Server
// has none here; the other dialects also run it for real in test/integration/adopt-existing-table).
const compilers = { mssql: knexFactory({ client: 'mssql' }), pg: knexFactory({ client: 'pg' }), mysql: knexFactory({ client: 'mysql2' }) };

afterAll(async () => {
  await Promise.all(Object.values(compilers).map((compiler) => compiler.destroy()));
});

const spec = { table: 'legacy_prices', key: ['ref', 'store'], keep: 'newest', by: 'loaded_at', primaryKey: 'id' } as const;

describe('rankedDuplicateRows', () => {
  it('ranks each key by --by (NULL last, ties by the primary key) with ROW_NUMBER over PARTITION BY, in T-SQL brackets', () => {
    expect(rankedDuplicateRows(compilers.mssql, spec).toQuery()).toBe(
      'select [id], [ref], [store], [loaded_at], [idem_rank] from (select [id], [ref], [store], [loaded_at], ' +
        'row_number() over (partition by [ref], [store] order by case when [loaded_at] is null then 1 else 0 end, [loaded_at] desc, [id] asc) as [idem_rank], ' +
        'count(*) over (partition by [ref], [store]) as [idem_count] from [legacy_prices] where [ref] is not null and [store] is not null) as [r] ' +
        'where [idem_count] > 1 order by [ref] asc, [store] asc, [idem_rank] asc',
    );
  });

  it('is the same statement in PostgreSQL and MySQL quoting; oldest ranks ascending', () => {
    expect(rankedDuplicateRows(compilers.pg, { ...spec, keep: 'oldest' }).toQuery()).toContain(
      'row_number() over (partition by "ref", "store" order by case when "loaded_at" is null then 1 else 0 end, "loaded_at" asc, "id" asc) as "idem_rank"',
    );
    expect(rankedDuplicateRows(compilers.mysql, spec).toQuery()).toContain('count(*) over (partition by `ref`, `store`) as `idem_count` from `legacy_prices`');
  });
});

describe('SQL Server copies a table with SELECT … INTO', () => {
  it('creates the empty copy of the rows to delete', async () => {
    const statements: string[] = [];
    const recorder = { raw: (sql: string, bindings: readonly Knex.RawBinding[]) => statements.push(compilers.mssql.raw(sql, bindings).toQuery()) } as unknown as Knex;
    await new MssqlDialect('mssql://sa:x@127.0.0.1:1433/db').createEmptyCopy(recorder, 'legacy_prices', 'legacy_prices_duplicates');
    expect(statements).toEqual(['select * into [legacy_prices_duplicates] from [legacy_prices] where 1 = 0']);
    expect(new MssqlDialect('mssql://sa:x@127.0.0.1:1433/db').transactionalDdl).toBe(true);
  });
});
