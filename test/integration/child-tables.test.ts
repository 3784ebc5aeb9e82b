import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import type { Database } from '../../src/db/database.ts';
import { openDatabase } from '../../src/db/open-database.ts';
import { createTestDatabase, describeEachDialect, type TestDatabase } from '../helpers/dialects.ts';
import { runCli, runCliWhenUnlocked, summaryOf } from '../helpers/run-cli.ts';
import { createScratchProject, type ScratchProject } from '../helpers/scratch-project.ts';

/** Orders from a CSV of lines (order, sku, qty): each order's lines go to the child table order_lines. */
const PIPELINE = `import { z } from 'zod';
import { column, csvSource, definePipeline, groupRows, type PipelineRecord, type SourceRow } from 'idem';

const Line = z.object({ order_no: z.string(), sku: z.string(), qty: z.coerce.number().int() });

async function* orders(rows: AsyncIterable<SourceRow<z.output<typeof Line>>>): AsyncGenerator<PipelineRecord> {
  for await (const { key, line, rows: items } of groupRows(rows, { key: (item) => item.order_no })) {
    yield { sourceReference: key, line, values: { line_count: items.length, lines: items.map(({ sku, qty }) => ({ sku, qty })) } };
  }
}

export const pipeline = definePipeline({
  name: 'orders',
  sourceSystem: 'shop',
  timeZone: 'UTC',
  source: csvSource({ directory: 'data', fileForDate: (d) => \`\${d}.csv\`, row: Line }),
  toRecords: orders,
  tables: { staging: 'stg_orders', target: 'orders' },
  columns: { line_count: column.integer(), lines: column.json() },
  children: [{ table: 'order_lines', list: 'lines', columns: { sku: column.text(), qty: column.integer() } }],
});
`;

const FIRST = 'order_no,sku,qty\nA,apple,1\nA,pear,2\nA,plum,3\nB,fig,4\nB,kiwi,5\nC,lime,6\n';
/** A corrected export: A's pear line is gone; B and C are as they were. */
const CORRECTED = 'order_no,sku,qty\nA,apple,1\nA,plum,3\nB,fig,4\nB,kiwi,5\nC,lime,6\n';

/** Nine CLI children in a row (migrate, check, make, migrate, check, three runs), on shared cores. */
const STORY_TIMEOUT_MS = 180_000;

describeEachDialect('child tables: an order\'s lines replaced with their order', (dialect) => {
  let testDb: TestDatabase;
  let project: ScratchProject;
  let db: Database;
  let env: Record<string, string>;

  beforeEach(async (context) => {
    testDb = await createTestDatabase(dialect, context.task.name);
    project = createScratchProject('children');
    project.writePipeline('orders', PIPELINE);
    env = { DATABASE_URL: testDb.url, IDEM_PROJECT_DIR: project.dir, IDEM_SOURCE_DIR: project.dataDir, IDEM_LOCK_LEASE_MS: '1000' };
    db = await openDatabase({ databaseUrl: testDb.url, projectDir: project.dir });
  });

  afterEach(async () => {
    const [mine, database, scratch] = [db, testDb, project];
    scratch.remove();
    await mine.close();
    await database.drop();
  });

  const file = (name: string, csv: string): string => {
    const at = path.join(project.dataDir, name);
    writeFileSync(at, csv);
    return at;
  };
  const lines = async () => (await db.knex('order_lines').select('source_system', 'source_reference', 'line_no', 'sku', 'qty').orderBy(['source_reference', 'line_no']))
    .map((row: Record<string, unknown>) => ({ ...row, line_no: Number(row.line_no), qty: Number(row.qty) }));
  const row = (ref: string, line_no: number, sku: string, qty: number) => ({ source_system: 'shop', source_reference: ref, line_no, sku, qty });

  it('idem migrate --make creates the child table; a changed order replaces its lines (a removed line disappears), an unchanged one keeps them, and kill -9 mid-upsert loses nothing', async () => {
    expect((await runCli(['migrate'], env)).code).toBe(0);
    // Schema drift knows the child table: idem check names it before a migration makes it.
    const unmade = await runCli(['check', 'orders'], env);
    expect(unmade.code).toBe(2);
    expect(unmade.stdout + unmade.stderr).toContain('schema drift: child table order_lines does not exist (a migration is missing); fix: idem migrate --make create_orders');
    const made = await runCli(['migrate', '--make'], env);
    expect(made.code, made.stderr).toBe(0);
    const migration = readFileSync(path.join(project.dir, /wrote (migrations\/\S+\.ts)/.exec(made.stdout + made.stderr)![1]!), 'utf8');
    expect(migration).toContain("await idem.createChildTable({\n    table: 'order_lines',\n    columns: {\n      sku: column.text(),\n      qty: column.integer(),\n    },\n  });");
    expect(migration).toContain("await idem.dropTables(['order_lines']);");
    expect((await runCli(['migrate'], env)).code).toBe(0);
    expect((await runCli(['check', 'orders'], env)).code).toBe(0);

    const first = await runCli(['run', 'orders', '--file', file('first.csv', FIRST)], env);
    expect(first.code, first.stderr).toBe(0);
    expect(summaryOf(first).counts.upsert.children).toEqual({ order_lines: { parents: 3, rows: 6 } });
    expect(await lines()).toEqual([
      row('A', 1, 'apple', 1), row('A', 2, 'pear', 2), row('A', 3, 'plum', 3), row('B', 1, 'fig', 4), row('B', 2, 'kiwi', 5), row('C', 1, 'lime', 6),
    ]);

    // Marks that only a rewrite removes: B is unchanged by the corrected export, so its mark must stay.
    await db.knex('order_lines').where({ source_reference: 'B', line_no: 1 }).update({ qty: 999 });
    await db.knex('order_lines').where({ source_reference: 'A', line_no: 1 }).update({ qty: 999 });
    const marked = await lines();

    const corrected = file('corrected.csv', CORRECTED);
    const killed = await runCli(['run', 'orders', '--file', corrected], { ...env, IDEM_FAILPOINTS: 'mid-upsert=kill' });
    expect(killed.signal).toBe('SIGKILL');
    expect(await lines()).toEqual(marked);
    expect((await db.knex('orders').where({ source_reference: 'A' }).first()).line_count).toSatisfy((n: unknown) => Number(n) === 3);

    // The dead run's SQLite lease (1 s) must lapse before the rerun takes the lock.
    const rerun = await runCliWhenUnlocked(['run', 'orders', '--file', corrected], env);
    expect(rerun.code, rerun.stderr).toBe(0);
    expect(summaryOf(rerun).counts.upsert).toMatchObject({ updated: 1, unchanged: 2, children: { order_lines: { parents: 1, rows: 2 } } });
    expect(await lines()).toEqual([row('A', 1, 'apple', 1), row('A', 2, 'plum', 3), row('B', 1, 'fig', 999), row('B', 2, 'kiwi', 5), row('C', 1, 'lime', 6)]);
  }, STORY_TIMEOUT_MS);
});
