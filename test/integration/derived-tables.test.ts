import { afterEach, beforeEach, expect, it } from 'vitest';
import type { Database } from '../../src/db/database.ts';
import { column } from '../../src/column/column-type.ts';
import { createMigrationContext } from '../../src/migration/create-migration-context.ts';
import { pipeline } from '../../pipelines/online-retail-invoices.ts';
import { readDailyTotals, recomputeDailyTotals, type DailyTotal } from '../helpers/daily-totals.ts';
import { describeEachDialect } from '../helpers/dialects.ts';
import { setUpExampleProject, type ExampleProject } from '../helpers/example-project.ts';
import { editedFixture } from '../helpers/fixtures.ts';
import { runCli, summaryOf } from '../helpers/run-cli.ts';

const DAY = '2010-12-01';
const TABLE = 'online_retail_daily_totals';
const RUN = ['run', pipeline.name, '--date', DAY];

describeEachDialect('derived tables: online_retail_daily_totals rebuilt for the run key', (dialect) => {
  let project: ExampleProject;
  let db: Database;

  beforeEach(async (context) => {
    project = await setUpExampleProject(dialect, context.task.name);
    ({ db } = project);
  });

  afterEach(() => project.close());

  const insertRow = (row: DailyTotal) => db.knex(TABLE).insert({
    ...row,
    business_date: db.adapter.toDriverValue(column.date(), row.business_date),
  });

  it('a dry run counts rows to insert; a run writes the recomputation of the date; a stale row goes, another date stays, the others are left identical', async () => {
    const planned = await runCli([...RUN, '--dry-run'], project.env);
    expect(planned.code, planned.stderr).toBe(0);
    expect(await readDailyTotals(db)).toEqual([]);
    const expectedCount = summaryOf(planned).plan.derived[0].insert as number;

    const first = await runCli(RUN, project.env);
    expect(first.code, first.stderr).toBe(0);
    const totals = await readDailyTotals(db);
    expect(totals).toEqual(await recomputeDailyTotals(db, [DAY]));
    expect(totals.length).toBeGreaterThan(1);
    expect(summaryOf(planned).plan.derived).toEqual([{ table: TABLE, scopes: [DAY], delete: 0, insert: totals.length, identical: 0 }]);
    expect(expectedCount).toBe(totals.length);
    expect(totals.find((row) => row.country === 'United Kingdom')).toMatchObject({ business_date: DAY });
    expect(summaryOf(first).counts.upsert.derived).toEqual({ [TABLE]: { scopes: [DAY], deleted: 0, inserted: totals.length } });

    // A row the query does not produce for the date, and a row of another date.
    const stale: DailyTotal = { business_date: DAY, country: 'Atlantis', invoices: 1, credit_notes: 0, total: '9.000' };
    const otherDate: DailyTotal = { business_date: '2010-12-02', country: 'Atlantis', invoices: 2, credit_notes: 1, total: '3.500' };
    await insertRow(stale);
    await insertRow(otherDate);

    const replanned = await runCli([...RUN, '--force', '--dry-run'], project.env);
    expect(replanned.code, replanned.stderr).toBe(0);
    expect(summaryOf(replanned).plan.derived).toEqual([{ table: TABLE, scopes: [DAY], delete: 1, insert: 0, identical: totals.length }]);
    expect(replanned.stdout).toMatch(new RegExp(`derived table ${TABLE} \\(${DAY}\\)\\n  delete +1\\n  insert +0\\n  identical +${totals.length}\\n`));
    expect(await readDailyTotals(db)).toHaveLength(totals.length + 2);

    const again = await runCli([...RUN, '--force'], project.env);
    expect(again.code, again.stderr).toBe(0);
    expect(await readDailyTotals(db)).toEqual([...totals, otherDate]);
  });

  it("the target has an index on the scopeFrom column (every date's rebuild selects by it); createScopeIndex is idempotent and dropScopeIndex undoes it", async () => {
    const index = 'online_retail_invoices_invoiced_at_idx';
    const spec = { table: pipeline.tables.target, column: 'invoiced_at' };
    expect(await db.adapter.readIndexNames(db.knex, spec.table)).toContain(index);
    const idem = createMigrationContext(db.knex, db.adapter);
    await idem.createScopeIndex(spec);
    expect((await db.adapter.readIndexNames(db.knex, spec.table)).filter((name) => name === index)).toHaveLength(1);
    await idem.dropScopeIndex(spec);
    expect(await db.adapter.readIndexNames(db.knex, spec.table)).not.toContain(index);
    await idem.dropScopeIndex(spec);
    await idem.createScopeIndex(spec);
    expect(await db.adapter.readIndexNames(db.knex, spec.table)).toContain(index);
  });

  it('a corrected export run as --file rebuilds the dates its invoices fall on (scopeFrom)', async () => {
    expect((await runCli(RUN, project.env)).code).toBe(0);
    const before = await readDailyTotals(db);
    // Every line of invoice 536365 (United Kingdom) twice the quantity.
    const corrected = editedFixture(DAY, (line) => (line.startsWith('536365,') ? line.replace(/^((?:[^,]*,){3})(\d+)/, (_, head: string, qty: string) => `${head}${Number(qty) * 2}`) : line));
    const run = await runCli(['run', pipeline.name, '--file', `${corrected}/${DAY}.csv`], project.env);
    expect(run.code, run.stderr).toBe(0);
    expect(summaryOf(run).counts.upsert).toMatchObject({ updated: 1, derived: { [TABLE]: { scopes: [DAY] } } });
    const after = await readDailyTotals(db);
    expect(after).toEqual(await recomputeDailyTotals(db, [DAY]));
    const uk = (rows: DailyTotal[]) => rows.find((row) => row.country === 'United Kingdom')!.total;
    expect(uk(after)).not.toBe(uk(before));
    expect(after.filter((row) => row.country !== 'United Kingdom')).toEqual(before.filter((row) => row.country !== 'United Kingdom'));
  });
});
