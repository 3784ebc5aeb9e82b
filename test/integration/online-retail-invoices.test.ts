import { Big } from 'big.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Database } from '../../src/db/database.ts';
import { describeEachDialect } from '../helpers/dialects.ts';
import { setUpExampleProject, type ExampleProject } from '../helpers/example-project.ts';
import { editedFixture, fixtureLines, writeTempSource } from '../helpers/fixtures.ts';
import { readInvoices } from '../helpers/read-target.ts';
import { runCli, summaryOf } from '../helpers/run-cli.ts';
import type { SandboxApi } from '../../src/sandbox/start-sandbox-api.ts';

const REFERENCE = [
  { date: '2010-12-01', lines: 3108, invoices: 143, creditNotes: 6, sum: '58635.56' },
  { date: '2011-03-27', lines: 737, invoices: 46, creditNotes: 14, sum: '8979.98' },
  { date: '2011-10-30', lines: 2907, invoices: 97, creditNotes: 1, sum: '34545.28' },
  { date: '2011-12-09', lines: 1632, invoices: 49, creditNotes: 5, sum: '32131.53' },
];

describeEachDialect('the online-retail-invoices pipeline on real daily files', (dialect) => {
  let project: ExampleProject;
  let db: Database;
  let sandbox: SandboxApi;
  let env: Record<string, string>;

  beforeEach(async (context) => {
    project = await setUpExampleProject(dialect, context.task.name);
    ({ db, sandbox, env } = project);
  });

  afterEach(() => project.close());

  it.each(REFERENCE)('loads $date with its reference figures', async (day) => {
    const result = await runCli(['run', 'online-retail-invoices', '--date', day.date], env);
    expect(result.code).toBe(0);
    const summary = summaryOf(result);
    expect(summary.outcome).toBe('completed');
    expect(summary.counts.extract.rows).toBe(day.lines);
    expect(summary.counts.upsert).toMatchObject({ inserted: day.invoices, updated: 0, unchanged: 0 });

    const invoices = await readInvoices(db);
    expect(invoices).toHaveLength(day.invoices);
    expect(invoices.filter((i) => i.document_type === 'credit_note')).toHaveLength(day.creditNotes);
    expect(invoices.every((i) => (i.document_type === 'credit_note') === i.source_reference.startsWith('C'))).toBe(true);
    expect(invoices.reduce((sum, i) => sum.plus(i.total), new Big(0)).eq(day.sum)).toBe(true);
    expect(invoices.reduce((n, i) => n + i.line_count, 0)).toBe(day.lines);
    expect(Number((await db.knex('stg_online_retail_invoices').count({ n: '*' }))[0]!.n)).toBe(0);
  });

  it('keeps invoice 536365 exactly: 7 lines, 139.12, customer 17850, London time as UTC', async () => {
    expect((await runCli(['run', 'online-retail-invoices', '--date', '2010-12-01'], env)).code).toBe(0);
    const invoice = (await readInvoices(db)).find((i) => i.source_reference === '536365')!;
    expect(invoice).toMatchObject({
      document_type: 'invoice',
      customer_id: '17850',
      country: 'United Kingdom',
      invoiced_at: '2010-12-01T08:26:00.000Z',
      line_count: 7,
      first_run_key: '2010-12-01',
    });
    expect(new Big(invoice.total).eq('139.12')).toBe(true);
    expect(invoice.lines[0]).toEqual({ stock_code: '85123A', description: 'WHITE HANGING HEART T-LIGHT HOLDER', quantity: 6, unit_price: '2.55', amount: '15.300' });
    // The destination sends `lines` as the JSON text the target holds (`row.rawJson`): the API got the same lines.
    const posted = sandbox.state.records().filter((r) => r.reference === '536365');
    expect(posted).toHaveLength(1);
    expect(posted[0]).toMatchObject({ type: 'invoice', version: invoice.row_hash, issued_at: '2010-12-01T08:26:00.000Z', total: invoice.total, lines: invoice.lines });
    // Guests have no customer number: NULL, not an empty string.
    expect((await readInvoices(db)).some((i) => i.customer_id === null)).toBe(true);
  });

  it('reruns a completed date as a no-op, and --force changes nothing', async () => {
    expect((await runCli(['run', 'online-retail-invoices', '--date', '2010-12-01'], env)).code).toBe(0);
    const before = await readInvoices(db);

    const again = await runCli(['run', 'online-retail-invoices', '--date', '2010-12-01'], env);
    expect(again.code).toBe(0);
    expect(summaryOf(again)).toMatchObject({ outcome: 'noop', exitCode: 0 });

    const forced = await runCli(['run', 'online-retail-invoices', '--date', '2010-12-01', '--force'], env);
    expect(forced.code).toBe(0);
    expect(summaryOf(forced).counts.upsert).toMatchObject({ inserted: 0, updated: 0, unchanged: 143 });
    expect(await readInvoices(db)).toEqual(before);

    const run = await db.knex('job_runs').where({ job_name: 'online-retail-invoices', run_key: '2010-12-01' });
    expect(run).toHaveLength(1);
    expect(run[0]).toMatchObject({ status: 'completed', attempts: 2 });
  });

  it('updates exactly the invoice whose quantity changed, and a customer emptied to NULL', async () => {
    expect((await runCli(['run', 'online-retail-invoices', '--date', '2010-12-01'], env)).code).toBe(0);
    const before = await readInvoices(db);

    // Line 2 is invoice 536365's first line: quantity 6 → 7.
    const quantityDir = editedFixture('2010-12-01', (line, n) => (n === 2 ? line.replace(',6,2010-12-01', ',7,2010-12-01') : line));
    const changed = await runCli(['run', 'online-retail-invoices', '--date', '2010-12-01', '--force'], { ...env, IDEM_SOURCE_DIR: quantityDir });
    expect(summaryOf(changed).counts.upsert).toMatchObject({ inserted: 0, updated: 1, unchanged: 142 });
    const after = await readInvoices(db);
    const updated = after.filter((row, i) => row.updated_at !== before[i]!.updated_at).map((row) => row.source_reference);
    expect(updated).toEqual(['536365']);
    expect(new Big(after.find((i) => i.source_reference === '536365')!.total).eq('141.67')).toBe(true);

    // Invoice 536366: customer 17850 → empty on every line (value → NULL).
    const customerDir = editedFixture('2010-12-01', (line) => (line.startsWith('536366,') ? line.replace(',17850.0,', ',,') : line));
    const emptied = await runCli(['run', 'online-retail-invoices', '--date', '2010-12-01', '--force'], { ...env, IDEM_SOURCE_DIR: customerDir });
    // 536365 goes back to quantity 6 as well: 2 updated.
    expect(summaryOf(emptied).counts.upsert).toMatchObject({ inserted: 0, updated: 2, unchanged: 141 });
    expect((await readInvoices(db)).find((i) => i.source_reference === '536366')!.customer_id).toBeNull();
  });

  it('stages a BOM + CRLF copy of a file exactly like the original', async () => {
    expect((await runCli(['run', 'online-retail-invoices', '--date', '2010-12-01'], env)).code).toBe(0);
    const before = await readInvoices(db);
    const crlf = `\uFEFF${fixtureLines('2010-12-01').join('\r\n')}\r\n\r\n\r\n`;
    const dir = writeTempSource('2010-12-01-bom-crlf.csv', crlf);
    const result = await runCli(['run', 'online-retail-invoices', '--file', `${dir}/2010-12-01-bom-crlf.csv`], env);
    expect(result.code).toBe(0);
    expect(summaryOf(result).counts.extract).toMatchObject({ rows: 3108, quarantined: 0 });
    expect(summaryOf(result).counts.upsert).toMatchObject({ inserted: 0, updated: 0, unchanged: 143 });
    expect(await readInvoices(db)).toEqual(before);
  });

  it('quarantines a broken line with its line number and fails the run before upsert', async () => {
    const dir = editedFixture('2010-12-01', (line, n) =>
      n === 10 ? line.replace(/,\d+,2010-12-01/, ',six,2010-12-01') : n === 20 ? line.split(',').slice(0, 5).join(',') : line,
    );
    const result = await runCli(['run', 'online-retail-invoices', '--date', '2010-12-01'], { ...env, IDEM_SOURCE_DIR: dir });
    expect(result.code).toBe(1);
    expect(summaryOf(result).outcome).toBe('failed');
    const quarantined = await db.knex('quarantine').orderBy('line');
    expect(quarantined.map((q: any) => [q.line, q.reason])).toEqual([
      [10, 'Quantity: expected an integer (got "six")'],
      [20, 'expected 8 fields, found 5'],
    ]);
    expect(quarantined[0].raw).toContain(',six,');
    expect(await readInvoices(db)).toEqual([]);
    const run = await db.knex('job_runs').first();
    expect(run).toMatchObject({ status: 'failed', attempts: 1 });
    expect(run.error).toContain('2 row(s) quarantined');

    // The fixed file: a plain rerun finishes the run key and clears its quarantine.
    const fixed = await runCli(['run', 'online-retail-invoices', '--date', '2010-12-01'], env);
    expect(fixed.code).toBe(0);
    expect(await db.knex('quarantine')).toEqual([]);
    expect(await db.knex('job_runs').first()).toMatchObject({ status: 'completed', attempts: 2 });
  });
});
