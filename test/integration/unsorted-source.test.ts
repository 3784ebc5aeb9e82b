import { afterEach, beforeEach, expect, it } from 'vitest';
import { seededRandom } from '../../src/prove/seeded-random.ts';
import { describeOneDialect } from '../helpers/dialects.ts';
import { setUpExampleProject, type ExampleProject } from '../helpers/example-project.ts';
import { fixtureLines, writeTempSource } from '../helpers/fixtures.ts';
import { readInvoices, type InvoiceRow } from '../helpers/read-target.ts';
import { runCli, summaryOf } from '../helpers/run-cli.ts';

const DATE = '2010-12-01';
const [HEADER, ...LINES] = fixtureLines(DATE);
const invoiceOf = (line: string): string => line.slice(0, line.indexOf(','));

/** The day's lines in a seeded random order that keeps each invoice's lines in their file order. */
function interleaved(seed: number): string[] {
  const random = seededRandom(seed);
  const priorities = new Map<string, number[]>();
  for (const line of LINES) {
    const list = priorities.get(invoiceOf(line)) ?? [];
    list.push(random());
    priorities.set(invoiceOf(line), list);
  }
  for (const list of priorities.values()) list.sort((a, b) => a - b);
  const next = new Map<string, number>();
  const keyed = LINES.map((line) => {
    const i = next.get(invoiceOf(line)) ?? 0;
    next.set(invoiceOf(line), i + 1);
    return { line, priority: priorities.get(invoiceOf(line))![i]! };
  });
  return keyed.sort((a, b) => a.priority - b.priority).map((k) => k.line);
}

/** The day's lines in a seeded random order (Fisher–Yates). */
function shuffled(seed: number): string[] {
  const random = seededRandom(seed);
  const out = [...LINES];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

function writeDay(name: string, lines: string[]): string {
  return `${writeTempSource(name, `${[HEADER, ...lines].join('\n')}\n`)}/${name}`;
}

/** What an invoice is, whatever the order of its lines in the file. */
const content = ({ lines, row_hash: _hash, first_run_key: _first, last_changed_run_key: _last, updated_at: _updated, ...invoice }: InvoiceRow) => ({
  ...invoice,
  lines: [...lines].sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b))),
});

describeOneDialect('an export whose invoice lines are not next to each other', (dialect) => {
  let project: ExampleProject;

  beforeEach(async (context) => {
    project = await setUpExampleProject(dialect, context.task.name);
    const sorted = await runCli(['run', 'online-retail-invoices', '--date', DATE], project.env);
    expect([sorted.code, summaryOf(sorted).counts.upsert]).toEqual([0, expect.objectContaining({ inserted: 143 })]);
  });

  afterEach(() => project?.close());

  it('loads the same rows as the shop’s own file when only the invoices are interleaved', async () => {
    const lines = interleaved(16);
    // Most invoices' lines are not next to each other any more.
    const split = [...new Set(lines.map(invoiceOf))].filter((invoice) => {
      const at = lines.flatMap((line, i) => (invoiceOf(line) === invoice ? [i] : []));
      return at.at(-1)! - at[0]! + 1 !== at.length;
    });
    expect(split.length).toBeGreaterThan(100);
    const before = await readInvoices(project.db);

    const file = writeDay('interleaved.csv', lines);
    const result = await runCli(['run', 'online-retail-invoices', '--file', file], project.env);
    expect([result.code, summaryOf(result).outcome]).toEqual([0, 'completed']);
    expect(summaryOf(result).counts.extract).toMatchObject({ rows: 3108, quarantined: 0 });
    // The first pass assumed a grouped file and stopped at the first invoice that came back; the second grouped through the sort.
    expect(result.logs.filter((line) => /not grouped by key/.test(String(line.msg))).map((line) => line.msg)).toEqual([
      expect.stringMatching(/^the source is not grouped by key: "\w+" comes back on line \d+ after its rows from line \d+ ended: reading it again, grouped by the sort$/),
    ]);
    // Every invoice, its lines in file order included, is exactly what the sorted file gave.
    expect(summaryOf(result).counts.upsert).toMatchObject({ inserted: 0, updated: 0, unchanged: 143 });
    expect(await readInvoices(project.db)).toEqual(before);

    const again = await runCli(['run', 'online-retail-invoices', '--file', file], project.env);
    expect([again.code, summaryOf(again).outcome]).toEqual([0, 'noop']);
    expect(project.sandbox.state.records()).toHaveLength(143);
  });

  it('reads the file again through the sort when one line of the first invoice is at its end, in a dry run too; a bad line is quarantined once, not once per pass', async () => {
    const [first, ...rest] = LINES;
    const before = await readInvoices(project.db);
    const moved = writeDay('moved.csv', [...rest, first!]);
    // A dry run holds its work in one transaction: the first pass must end without failing its bulk load (PostgreSQL would abort the transaction).
    const planned = await runCli(['run', 'online-retail-invoices', '--file', moved, '--dry-run'], project.env);
    expect([planned.code, summaryOf(planned).outcome, summaryOf(planned).counts.upsert]).toEqual([0, 'planned', expect.objectContaining({ inserted: 0, updated: 1, unchanged: 142 })]);
    const result = await runCli(['run', 'online-retail-invoices', '--file', moved], project.env);
    expect([result.code, summaryOf(result).outcome]).toEqual([0, 'completed']);
    expect(result.logs.find((line) => /not grouped by key/.test(String(line.msg)))?.msg).toBe(
      `the source is not grouped by key: "536365" comes back on line ${LINES.length + 1} after its rows from line 2 ended: reading it again, grouped by the sort`,
    );
    // The same invoices: 536365's lines in file order are now 2..7 then 1, a new version of it alone.
    expect(summaryOf(result).counts.upsert).toMatchObject({ inserted: 0, updated: 1, unchanged: 142 });
    expect((await readInvoices(project.db)).map(content)).toEqual(before.map(content));

    // The file's first data line (line 2) broken: both passes read it; the quarantine holds it once.
    const broken = writeDay('broken.csv', [rest[0]!.replace(',6,', ',six,'), ...rest.slice(1), first!]);
    const failed = await runCli(['run', 'online-retail-invoices', '--file', broken], project.env);
    expect([failed.code, summaryOf(failed).counts.extract]).toEqual([1, expect.objectContaining({ rows: LINES.length - 1, quarantined: 1 })]);
    const quarantined = await project.db.knex('quarantine').select('line', 'reason');
    expect(quarantined).toEqual([{ line: 2, reason: 'Quantity: expected an integer (got "six")' }]);
  });

  it('loads the same totals and line counts from a file in random line order; an invoice whose lines moved is a new version', async () => {
    const lines = shuffled(16);
    // An invoice's lines are kept in file order: those whose lines changed order are updated.
    const moved = [...new Set(LINES.map(invoiceOf))].filter((invoice) => {
      const before = LINES.filter((l) => invoiceOf(l) === invoice);
      const after = lines.filter((l) => invoiceOf(l) === invoice);
      return before.some((l, i) => l !== after[i]);
    });
    expect(moved.length).toBeGreaterThan(100);
    const before = await readInvoices(project.db);

    const result = await runCli(['run', 'online-retail-invoices', '--file', writeDay('shuffled.csv', lines)], project.env);
    expect([result.code, summaryOf(result).outcome]).toEqual([0, 'completed']);
    expect(summaryOf(result).counts.upsert).toMatchObject({ inserted: 0, updated: moved.length, unchanged: 143 - moved.length });
    const after = await readInvoices(project.db);
    expect(after.map(content)).toEqual(before.map(content));
    expect(after.filter((row, i) => row.row_hash !== before[i]!.row_hash).map((row) => row.source_reference)).toEqual(moved.sort());
  });
});
