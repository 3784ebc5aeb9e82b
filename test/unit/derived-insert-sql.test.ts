import knexFactory from 'knex';
import { afterAll, describe, expect, it } from 'vitest';
import { pipeline } from '../../pipelines/online-retail-invoices.ts';
import { derivedInsert } from '../../src/upsert/rebuild-derived-tables.ts';

const derived = pipeline.derived[0]!;
const scope = { value: '2010-12-01', start: '2010-12-01T00:00:00.000Z', end: '2010-12-02T00:00:00.000Z' };

// SQL Server has no server here: its statement is checked as knex's mssql client writes it.
describe("a derived table's INSERT … SELECT, as each dialect's knex writes it", () => {
  const clients = { mssql: knexFactory({ client: 'mssql' }), pg: knexFactory({ client: 'pg' }) };
  afterAll(async () => {
    for (const knex of Object.values(clients)) await knex.destroy();
  });

  it('SQL Server: the scope bound first, the other columns by name from the query, its own bindings after', () => {
    const knex = clients.mssql;
    const query = derived.query(knex(pipeline.tables.target), scope, knex.raw.bind(knex) as never);
    const native = derivedInsert(knex, derived, query, scope.value).toSQL().toNative();
    expect(native.sql).toBe(
      'insert into [online_retail_daily_totals] ([business_date], [country], [invoices], [credit_notes], [total]) ' +
        'select @p0 as [business_date], [q].[country], [q].[invoices], [q].[credit_notes], [q].[total] from ' +
        '(select [country], sum(case when document_type = @p1 then 1 else 0 end) as invoices, sum(case when document_type = @p2 then 1 else 0 end) as credit_notes, round(sum(total), 3) as total ' +
        'from [online_retail_invoices] where [invoiced_at] >= @p3 and [invoiced_at] < @p4 group by [country]) as [q]',
    );
    expect(native.bindings).toEqual(['2010-12-01', 'invoice', 'credit_note', scope.start, scope.end]);
  });

  it('PostgreSQL: the same statement with positional parameters', () => {
    const knex = clients.pg;
    const query = derived.query(knex(pipeline.tables.target), scope, knex.raw.bind(knex) as never);
    const native = derivedInsert(knex, derived, query, scope.value).toSQL().toNative();
    expect(native.sql).toMatch(/^insert into "online_retail_daily_totals" \("business_date", "country", "invoices", "credit_notes", "total"\) select \$1 as "business_date", "q"\."country"/);
    expect(native.bindings).toEqual(['2010-12-01', 'invoice', 'credit_note', scope.start, scope.end]);
  });
});
