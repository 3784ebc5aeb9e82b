import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Database } from '../../src/db/database.ts';
import { openDatabase } from '../../src/db/open-database.ts';
import { createTestDatabase, describeEachDialect, type TestDatabase } from '../helpers/dialects.ts';
import { runCli, summaryOf } from '../helpers/run-cli.ts';
import { createScratchProject, type ScratchProject } from '../helpers/scratch-project.ts';

// Column types that read their source's formats (an id written as a float, a padded decimal, a
// London wall time, nested lines by a zod shape) store one canonical value on every dialect, so a
// re-export with other formatting is no change.
const COLUMNS = `{
  customer_id: column.id({ nullable: true }),
  price: column.decimal(10, 3),
  sold_at: column.instant({ wallTime: 'dd/MM/yyyy HH:mm' }),
  lines: column.json({ shape: z.array(z.object({ sku: z.string(), qty: canonicalField.integer(), price: canonicalField.decimal(3) })) }),
}`;

const PIPELINE = `import { z } from 'zod';
import { canonicalField, column, csvSource, definePipeline, type PipelineRecord, type SourceRow } from 'idem';

type Row = { ref: string; customer: string; price: string; sold: string; sku: string; qty: string };
async function* records(rows: AsyncIterable<SourceRow<Row>>): AsyncGenerator<PipelineRecord> {
  for await (const { line, value: v } of rows) {
    yield { sourceReference: v.ref, line, values: { customer_id: v.customer, price: v.price, sold_at: v.sold, lines: [{ sku: v.sku, qty: v.qty, price: v.price }] } };
  }
}

export const pipeline = definePipeline({
  name: 'sales',
  sourceSystem: 'shop',
  timeZone: 'Europe/London',
  source: csvSource({ directory: 'data', fileForDate: (d) => \`\${d}.csv\`, row: z.object({ ref: z.string(), customer: z.string(), price: z.string(), sold: z.string(), sku: z.string(), qty: z.string() }), invalidRows: 'quarantine' }),
  toRecords: records,
  tables: { staging: 'stg_sales', target: 'sales' },
  columns: ${COLUMNS},
});
`;

const MIGRATION = `import type { Knex } from 'knex';
import { z } from 'zod';
import { canonicalField, column, type MigrationContext } from 'idem';
const TABLES = { staging: 'stg_sales', target: 'sales' };
export async function up(_knex: Knex, idem: MigrationContext): Promise<void> {
  await idem.createPipelineTables({ ...TABLES, columns: ${COLUMNS} });
}
export async function down(_knex: Knex, idem: MigrationContext): Promise<void> {
  await idem.dropPipelineTables(TABLES);
}
`;

const HEADER = 'ref,customer,price,sold,sku,qty\n';

describeEachDialect('column types that parse their formats, stored canonical', (dialect) => {
  let testDb: TestDatabase;
  let project: ScratchProject;
  let db: Database;
  let env: Record<string, string>;
  const write = (day: string, csv: string) => writeFileSync(path.join(project.dataDir, `${day}.csv`), HEADER + csv);

  beforeAll(async () => {
    testDb = await createTestDatabase(dialect, 'column formats');
    project = createScratchProject('column-formats');
    project.writePipeline('sales', PIPELINE);
    project.writeMigration('20261203000000_create_sales', MIGRATION);
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

  const read = async () => (await db.knex('sales').select('source_reference', 'customer_id', 'price', 'sold_at', 'lines').orderBy('source_reference')).map((row: any) => ({
    ref: row.source_reference,
    customer_id: row.customer_id,
    price: db.adapter.fromDriverValue({ type: 'decimal', nullable: false, precision: 10, scale: 3 }, row.price),
    sold_at: db.adapter.fromDriverValue({ type: 'instant', nullable: false }, row.sold_at),
    lines: JSON.parse(db.adapter.fromDriverJsonText(row.lines) as string),
  }));

  it('stores each value in its canonical form, and a re-export with other formatting changes nothing', async () => {
    // Summer (BST) and winter (GMT) wall times; an id written as a float; a guest; padded numbers.
    write('2026-07-01', 'A,17850.0, 2.5500 ,01/07/2026 09:30,85123A,6.0\nB,,+10,15/12/2025 23:05,71053, 2 \n');
    const first = await runCli(['run', 'sales', '--date', '2026-07-01'], env);
    expect(first.code, first.stderr).toBe(0);
    const stored = [
      { ref: 'A', customer_id: '17850', price: '2.550', sold_at: '2026-07-01T08:30:00.000Z', lines: [{ price: '2.550', qty: 6, sku: '85123A' }] },
      { ref: 'B', customer_id: null, price: '10.000', sold_at: '2025-12-15T23:05:00.000Z', lines: [{ price: '10.000', qty: 2, sku: '71053' }] },
    ];
    expect(await read()).toEqual(stored);

    write('2026-07-01', 'A, 17850 ,2.55,01/07/2026 09:30,85123A,6\nB,  ,10.000,15/12/2025 23:05,71053,2.0\n');
    const again = await runCli(['run', 'sales', '--date', '2026-07-01', '--force'], env);
    expect(again.code, again.stderr).toBe(0);
    expect(summaryOf(again).counts.upsert).toMatchObject({ inserted: 0, updated: 0, unchanged: 2 });
    expect(await read()).toEqual(stored);
  });

  it('quarantines a wall time that does not exist in the zone and a nested value its shape refuses, naming column and rule', async () => {
    write('2026-03-29', 'C,1,1,29/03/2026 01:30,X,1\nD,2,1,29/03/2026 02:30,Y,1.5\nE,3,1,29/03/2026 03:30,Z,1\n');
    const result = await runCli(['run', 'sales', '--date', '2026-03-29'], env);
    const reasons = (await db.knex('quarantine').select('reason').where({ run_key: '2026-03-29' }).orderBy('id')).map((row: any) => row.reason);
    expect(reasons).toEqual([
      'shop C: column sold_at: must be a date and time dd/MM/yyyy HH:mm that exists in Europe/London (got "29/03/2026 01:30")',
      'shop D: column lines: at 0.qty: expected an integer (got [{"sku":"Y","qty":"1.5","price":"1"}])',
    ]);
    expect(result.code, result.stderr).toBe(0);
    expect((await read()).find((row) => row.ref === 'E')).toMatchObject({ sold_at: '2026-03-29T02:30:00.000Z' });
  });
});
