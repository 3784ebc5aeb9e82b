import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Database } from '../../src/db/database.ts';
import { openDatabase } from '../../src/db/open-database.ts';
import { createTestDatabase, describeEachDialect, type TestDatabase } from '../helpers/dialects.ts';
import { runCli, summaryOf } from '../helpers/run-cli.ts';
import { createScratchProject, type ScratchProject } from '../helpers/scratch-project.ts';

// The shapes a data engineer meets next (issue 25 §3): a semicolon-delimited export with a
// decimal comma and thousands dots, whose business key is two fields (order and line number).
// Declared on the source and the pipeline; read by csv-parse, the numbers by the columns' rules.
// Every dialect: the canonical decimals and the encoded references are stored and compared there.

const COLUMNS = `{
  sku: column.text(),
  qty: column.integer(),
  price: column.decimal(12, 2),
}`;

const PIPELINE = `import { column, csvSource, definePipeline } from 'idem';

export const pipeline = definePipeline({
  name: 'order-lines',
  sourceSystem: 'erp',
  timeZone: 'Europe/Berlin',
  source: csvSource({ directory: 'data', fileForDate: (d) => \`\${d}.csv\`, delimiter: ';', decimalSeparator: ',', groupSeparator: '.', invalidRows: 'quarantine' }),
  key: ['order_id', 'line_no'],
  tables: { staging: 'stg_order_lines', target: 'order_lines' },
  columns: ${COLUMNS},
});
`;

const MIGRATION = `import type { Knex } from 'knex';
import { column, type MigrationContext } from 'idem';
const TABLES = { staging: 'stg_order_lines', target: 'order_lines' };
export async function up(_knex: Knex, idem: MigrationContext): Promise<void> {
  await idem.createPipelineTables({ ...TABLES, columns: ${COLUMNS} });
}
export async function down(_knex: Knex, idem: MigrationContext): Promise<void> {
  await idem.dropPipelineTables(TABLES);
}
`;

describeEachDialect('CSV dialects and composite keys', (dialect) => {
  let testDb: TestDatabase;
  let project: ScratchProject;
  let db: Database;
  let env: Record<string, string>;
  const write = (day: string, csv: string) => writeFileSync(path.join(project.dataDir, `${day}.csv`), csv);

  beforeAll(async () => {
    testDb = await createTestDatabase(dialect, 'csv dialects');
    project = createScratchProject('csv-dialects');
    project.writePipeline('order-lines', PIPELINE);
    project.writeMigration('20261203000000_create_order_lines', MIGRATION);
    env = { DATABASE_URL: testDb.url, IDEM_PROJECT_DIR: project.dir, IDEM_SOURCE_DIR: project.dataDir };
    const migrated = await runCli(['migrate'], env);
    expect(migrated.code, migrated.stderr).toBe(0);
    db = await openDatabase({ databaseUrl: testDb.url, projectDir: project.dir });
  });

  afterAll(async () => {
    project?.remove();
    await db?.close();
    await testDb?.drop();
  });

  const rows = async () =>
    (await db.knex('order_lines').select('source_reference', 'sku', 'qty', 'price'))
      .map((row) => [row.source_reference, row.sku, Number(row.qty), String(row.price)])
      .sort(([a], [b]) => (a < b ? -1 : 1));

  it('reads a semicolon file with decimal commas; a composite key is one unambiguous source reference', async () => {
    write(
      '2026-03-02',
      'order_id;line_no;sku;qty;price\n' +
        '536365;1;"WHITE; HANGING";1.200;1.234,50\n' + // a quoted delimiter stays in its field; 1.200 is twelve hundred
        '536365;2;MUG;6;2,55\n' +
        'A/7;1;PLATE;1;-0,10\n' + // a / in a key part is encoded, so A/7 + 1 never meets A + 7/1
        'A;7/1;BOWL;2;3\n' +
        '536366;1;SPOON;1;1.23.4,5\n', // not a number in this format: quarantined, naming the field and the rule
    );
    const run = await runCli(['run', 'order-lines', '--date', '2026-03-02'], env);
    expect(run.code, run.stderr).toBe(0);
    expect(summaryOf(run).counts.upsert).toMatchObject({ inserted: 4 });
    expect(await rows()).toEqual([
      ['536365/1', 'WHITE; HANGING', 1200, '1234.50'],
      ['536365/2', 'MUG', 6, '2.55'],
      ['A%2F7/1', 'PLATE', 1, '-0.10'],
      ['A/7%2F1', 'BOWL', 2, '3.00'],
    ]);
    const quarantined = await db.knex('quarantine').select('line', 'reason', 'raw').where({ run_key: '2026-03-02' });
    expect(quarantined).toHaveLength(1);
    expect(quarantined[0].reason).toContain('price');
    expect(quarantined[0].reason).toContain('must be a number written with "," between the whole and the decimal part and "." between groups of three digits');
    expect(Number(quarantined[0].line)).toBe(6);

    // A re-export with the other number formatting of the same values is no change.
    write('2026-03-02', 'order_id;line_no;sku;qty;price\n536365;1;"WHITE; HANGING";1200;1234,5\n536365;2;MUG;6;2,550\n');
    const rerun = await runCli(['run', 'order-lines', '--date', '2026-03-02', '--force'], env);
    expect(rerun.code, rerun.stderr).toBe(0);
    expect(summaryOf(rerun).counts.upsert).toMatchObject({ inserted: 0, updated: 0 });
  });

  it('a file in another delimiter than declared is refused naming the delimiter to declare', async () => {
    write('2026-03-03', 'order_id,line_no,sku,qty,price\n1,1,MUG,1,"2,55"\n');
    const run = await runCli(['run', 'order-lines', '--date', '2026-03-03'], env);
    expect(run.code).toBe(1);
    // Split at the declared ';', the comma file's header is one field that joins to the same text:
    // it is compared field by field, never as joined text.
    expect(summaryOf(run).err.message).toContain('2026-03-03.csv:1: header must be order_id;line_no;sku;qty;price: the file looks comma-delimited (","); declare csvSource({ delimiter: "," })');
  });

  it('idem new infers the delimiter and the decimal comma from the sample, and --key a,b writes a composite key; the pipeline loads the sample', async () => {
    const scaffolded = createScratchProject('csv-dialects-new');
    try {
      const sample = path.join(scaffolded.dir, 'lines.csv');
      writeFileSync(sample, 'order_id;line_no;sku;qty;price;weight\n536365;1;"WHITE; HANGING";1.200;1.234,50;0,5\n536365;2;MUG;6;2,55;1\n536366;1;PLATE;1;-0,10;0,25\n');
      const newEnv = { ...env, IDEM_PROJECT_DIR: scaffolded.dir };
      const made = await runCli(['new', 'order-lines', '--csv', sample, '--key', 'order_id,line_no', '--time-zone', 'Europe/Berlin'], newEnv);
      expect(made.code, made.stderr).toBe(0);
      expect(made.stdout).toContain('key: order_id, line_no\n');
      const module = readFileSync(path.join(scaffolded.dir, 'pipelines/order-lines.ts'), 'utf8');
      expect(module).toContain(`source: csvSource({ nullValues: ['', 'NA', 'NULL'], delimiter: ";", decimalSeparator: ',', groupSeparator: '.' }),`);
      expect(module).toContain("key: ['order_id', 'line_no'],");
      expect(module).toMatch(/qty: column\.integer\(\),/);
      expect(module).toMatch(/price: column\.decimal\(\d+, 2\),/);
      expect(module).toMatch(/weight: column\.decimal\(\d+, 2\),/);

      const repeated = await runCli(['new', 'other', '--csv', sample, '--key', 'order_id'], newEnv);
      expect(repeated.code).toBe(2);
      expect(repeated.stderr).toContain('--key order_id is missing or repeated in the sample');

      const scaffoldDb = await createTestDatabase(dialect, 'csv dialects new');
      try {
        const dbEnv = { ...newEnv, DATABASE_URL: scaffoldDb.url };
        expect((await runCli(['migrate'], dbEnv)).code).toBe(0);
        const run = await runCli(['run', 'order-lines', '--file', path.join(scaffolded.dir, 'fixtures/order-lines/sample.csv')], dbEnv);
        expect(run.code, run.stderr).toBe(0);
        expect(summaryOf(run).counts.upsert).toMatchObject({ inserted: 3 });
      } finally {
        await scaffoldDb.drop();
      }
    } finally {
      scaffolded.remove();
    }
  });

  it('refuses a group separator equal to the decimal separator, and a delimiter that is a quote, when the module loads (exit 2)', async () => {
    project.writePipeline('order-lines', PIPELINE.replace("groupSeparator: '.'", "groupSeparator: ','"));
    const same = await runCli(['check'], env);
    expect(same.code).toBe(2);
    expect(same.stdout + same.stderr).toContain('source.groupSeparator and source.decimalSeparator are both ","');
    project.writePipeline('order-lines', PIPELINE.replace("delimiter: ';'", "delimiter: '\"'"));
    const quote = await runCli(['check'], env);
    expect(quote.code).toBe(2);
    expect(quote.stdout + quote.stderr).toContain('delimiter');
    expect(quote.stdout + quote.stderr).toContain('must be one character, not a double quote or a line break');
    project.writePipeline('order-lines', PIPELINE);
  });
});
