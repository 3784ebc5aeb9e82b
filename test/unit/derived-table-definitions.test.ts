import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { column } from '../../src/column/column-type.ts';
import { definePipeline } from '../../src/pipeline/define-pipeline.ts';
import { PipelineDefinitionError } from '../../src/pipeline/pipeline-definition-error.ts';
import { csvSource } from '../../src/source/csv/csv-source.ts';

const Row = z.object({ ref: z.string(), country: z.string() });
const TOTALS = { business_date: column.date(), country: column.text(), orders: column.integer() };

/** A valid definition with one derived and one child table; each test changes one thing. */
function base(): any {
  return {
    name: 'orders',
    sourceSystem: 'shop',
    timeZone: 'Europe/London',
    source: csvSource({ directory: 'data', fileForDate: (d) => `${d}.csv`, header: ['ref', 'country'], row: Row }),
    async *toRecords() {},
    tables: { staging: 'stg_orders', target: 'orders' },
    columns: { country: column.text(), ordered_at: column.instant(), lines: column.json() },
    derived: [{
      table: 'daily_orders',
      columns: TOTALS,
      scopeFrom: 'ordered_at',
      query: (orders: any, scope: any) => orders.where('ordered_at', '>=', scope.start).andWhere('ordered_at', '<', scope.end).groupBy('country').select('country').count({ orders: '*' }),
    }],
    children: [{ table: 'order_lines', list: 'lines', columns: { sku: column.text() } }],
  };
}

function problemsOf(change: (definition: any) => void): readonly string[] {
  const definition = base();
  change(definition);
  try {
    definePipeline(definition);
  } catch (error) {
    expect(error).toBeInstanceOf(PipelineDefinitionError);
    return (error as PipelineDefinitionError).problems;
  }
  return [];
}

const RULE = 'must filter on the scope with a bound parameter';

describe('derived and child tables are checked when the pipeline module loads', () => {
  it('accepts the definition, the scope column defaulting to business_date', () => {
    expect(problemsOf(() => undefined)).toEqual([]);
    expect(definePipeline(base()).derived[0]!.scope).toBe('business_date');
  });

  it('accepts a query that filters on scope.value (a target with a date column)', () => {
    expect(problemsOf((d) => { d.derived[0].query = (orders: any, scope: any) => orders.where({ country: 'UK' }).andWhere('ordered_at', scope.value).select('country'); })).toEqual([]);
  });

  it('refuses a derived table whose columns lack the scope column, naming the table and the rule', () => {
    expect(problemsOf((d) => { d.derived[0].columns = { country: column.text(), orders: column.integer() }; })).toEqual([
      'pipeline derived[0] (daily_orders).scope names no column of daily_orders: declare business_date: column.date() in its columns, or name its scope column (got "business_date"; columns country, orders)',
    ]);
    expect(problemsOf((d) => { d.derived[0].scope = 'day'; })[0]).toContain('derived[0] (daily_orders).scope names no column of daily_orders');
    expect(problemsOf((d) => { d.derived[0].columns = { ...TOTALS, business_date: column.text() }; })).toEqual([
      'pipeline derived[0] (daily_orders).columns.business_date holds the scope (a business date): must be column.date(), or column.text({ maxLength: n }) with n ≤ 200 (got column.text())',
    ]);
  });

  it('refuses a query without a filter on the scope, one bound only in its select list, and one bounded on one side only', () => {
    const refused = (query: (orders: any, scope: any, raw: any) => unknown) => problemsOf((d) => { d.derived[0].query = query; });
    expect(refused((orders) => orders.groupBy('country').select('country').count({ orders: '*' }))).toEqual([`pipeline derived[0] (daily_orders).query ${RULE} (a where on scope.value, or on both scope.start and scope.end): the rows of another scope would be written into this one`]);
    expect(refused((orders, scope, raw) => orders.select('country', raw('? as day', [scope.value])))[0]).toContain(RULE);
    expect(refused((orders, scope) => orders.where('ordered_at', '>=', scope.start).select('country'))[0]).toContain(RULE);
    // A date interpolated into the SQL text is no bound parameter.
    expect(refused((orders, scope, raw) => orders.where(raw(`ordered_at >= '${scope.value}'`)).select('country'))[0]).toContain(RULE);
    expect(refused(() => 'select 1')).toEqual(['pipeline derived[0] (daily_orders).query must return a knex query builder (the target builder it is given, with its clauses)']);
    expect(refused(() => { throw new Error('boom'); })).toEqual(['pipeline derived[0] (daily_orders).query threw when built with a probe scope: boom']);
  });

  it('refuses a scopeFrom that is no date or instant column, a child list that is no json column, and a child column named like its key', () => {
    expect(problemsOf((d) => { d.derived[0].scopeFrom = 'country'; })).toEqual(['pipeline derived[0] (daily_orders).scopeFrom must name a date or instant column of the pipeline (got "country", a text column)']);
    expect(problemsOf((d) => { d.children[0].list = 'country'; })).toEqual(['pipeline children[0] (order_lines).list must name a json column of the pipeline that holds the list (got "country", a text column)']);
    expect(problemsOf((d) => { d.children[0].columns = { line_no: column.integer() }; })).toEqual(["pipeline children[0] (order_lines).columns.line_no is idem's key column of a child table (got line_no)"]);
    expect(problemsOf((d) => { d.children[0].table = 'orders'; })).toEqual(['pipeline children[0] (order_lines).table is another table of the pipeline (got "orders")'.replace('(order_lines)', '(orders)')]);
  });

  it('names an unknown option of a derived table', () => {
    expect(problemsOf((d) => { d.derived[0].scopeColumn = 'day'; })).toEqual(['pipeline derived[0] has no option "scopeColumn"; its options are table, scope, columns, query, scopeFrom']);
  });
});
