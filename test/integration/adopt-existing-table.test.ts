import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { column } from '../../src/column/column-type.ts';
import type { Database } from '../../src/db/database.ts';
import { openDatabase } from '../../src/db/open-database.ts';
import { createTestDatabase, describeEachDialect, type TestDatabase } from '../helpers/dialects.ts';
import { runCli, summaryOf } from '../helpers/run-cli.ts';
import { createScratchProject, type ScratchProject } from '../helpers/scratch-project.ts';

// A team adopts idem over an import table it already has, with the duplicates such a table
// gathers (docs/operating.md, "Adopting an existing table"): `idem duplicates` finds them (exit 3),
// `idem migrate --make` refuses while they remain (exit 3), `--keep newest --by id --apply` keeps
// one row per key in one transaction (copied first), then the migration adopts the table and the
// first run changes only what differs. Window functions, DDL in transactions and catalogs differ by
// dialect: every dialect.

const DAY = '2026-03-02';

const PIPELINE = `import { column, csvSource, definePipeline } from 'idem';

export const pipeline = definePipeline({
  name: 'prices',
  sourceSystem: 'legacy',
  timeZone: 'UTC',
  source: csvSource({ directory: 'data', fileForDate: (d) => \`\${d}.csv\` }),
  key: 'ref',
  tables: { staging: 'stg_legacy_prices', target: 'legacy_prices' },
  columns: {
    price: column.decimal(10, 2),
    qty: column.integer(),
  },
});
`;

/** The import table as the team made it: its own id, the key column, the values; A three times, B twice. */
const LEGACY_ROWS = [
  { ref: 'A', price: '1.00', qty: 1 },
  { ref: 'A', price: '1.10', qty: 1 },
  { ref: 'A', price: '1.20', qty: 2 },
  { ref: 'B', price: '5.00', qty: 5 },
  { ref: 'B', price: '5.50', qty: 5 },
  { ref: 'C', price: '9.99', qty: 9 },
];

describeEachDialect('adopting an existing table: idem duplicates, then migrate --make', (dialect) => {
  let testDb: TestDatabase;
  let project: ScratchProject;
  let db: Database;
  let env: Record<string, string>;

  beforeEach(async (context) => {
    testDb = await createTestDatabase(dialect, context.task.name);
    project = createScratchProject('adopt');
    env = { DATABASE_URL: testDb.url, IDEM_PROJECT_DIR: project.dir, IDEM_SOURCE_DIR: project.dataDir };
    project.writePipeline('prices', PIPELINE);
    db = await openDatabase({ databaseUrl: testDb.url, projectDir: project.dir });
    await db.knex.schema.createTable('legacy_prices', (t) => {
      t.increments('id');
      db.adapter.addColumn(t, 'ref', column.text({ maxLength: 50 }));
      db.adapter.addColumn(t, 'price', column.decimal(10, 2));
      db.adapter.addColumn(t, 'qty', column.integer());
    });
    for (const row of LEGACY_ROWS) await db.knex('legacy_prices').insert(row);
  });

  afterEach(async () => {
    const [mine, database, scratch] = [db, testDb, project];
    scratch.remove();
    await mine.close();
    await database.drop();
  });

  const ids = async (table: string) => (await db.knex(table).select('id').orderBy('id')).map((row) => Number(row.id));

  it('lists the keys more than one row holds (exit 3), and exits 0 on a key no two rows share', async () => {
    const listed = await runCli(['duplicates', 'legacy_prices', '--key', 'ref'], env);
    expect(listed.code, listed.stderr).toBe(3);
    expect(listed.stdout).toContain('table legacy_prices: 2 keys of (ref) held by more than one row, 3 rows too many');
    expect(listed.stdout).toContain('ref="A": 3 rows');
    expect(listed.stdout).toContain('idem duplicates legacy_prices --key ref --keep newest --by COLUMN');

    const json = await runCli(['duplicates', 'legacy_prices', '--key', 'ref', '--json', '--limit', '1'], env);
    expect(json.code).toBe(3);
    const report = JSON.parse(json.stdout);
    expect(report).toMatchObject({ table: 'legacy_prices', key: ['ref'], groupCount: 2, surplusRows: 3 });
    // --limit 1: the key with the most rows, its rows by primary key.
    expect(report.groups).toHaveLength(1);
    expect(report.groups[0]).toMatchObject({ key: { ref: 'A' }, count: 3 });
    expect(report.groups[0].rows.map((row: { id: unknown }) => Number(row.id))).toEqual([1, 2, 3]);

    const together = await runCli(['duplicates', 'legacy_prices', '--key', 'ref,price'], env);
    expect(together.code, together.stderr).toBe(0);
    expect(together.stdout).toBe('table legacy_prices: no two rows share (ref, price)\n');

    const typo = await runCli(['duplicates', 'legacy_prices', '--key', 'reff'], env);
    expect(typo.code).toBe(2);
    expect(typo.stderr).toContain('table legacy_prices has no column "reff" (its columns: id, ref, price, qty)');
  });

  it('migrate --make refuses while rows share the key (exit 3, naming idem duplicates); --apply keeps the newest per key; the table is adopted; the first run changes only what differs', async () => {
    expect((await runCli(['migrate'], env)).code).toBe(0);
    const refused = await runCli(['migrate', '--make'], env);
    expect(refused.code, refused.stderr).toBe(3);
    expect(refused.stderr).toContain('table legacy_prices has 2 keys of (ref) held by more than one row (3 rows too many)');
    expect(refused.stderr).toContain('idem duplicates legacy_prices --key ref');
    expect(readdirSync(path.join(project.dir, 'migrations'))).toEqual([]);

    // The plan changes nothing, and still exits 3: the duplicates are there.
    const plan = await runCli(['duplicates', 'legacy_prices', '--key', 'ref', '--keep', 'newest', '--by', 'id'], env);
    expect(plan.code, plan.stderr).toBe(3);
    // Each row by its primary key, key and --by column.
    expect(plan.stdout).toContain('ref="A": keep id=3 ref="A"\n  remove id=2 ref="A"\n  remove id=1 ref="A"\nref="B": keep id=5 ref="B"\n  remove id=4 ref="B"\n');
    expect(plan.stdout).toMatch(/plan: 3 rows of legacy_prices would go, 2 keys keep the row with the greatest id/);
    expect(await ids('legacy_prices')).toEqual([1, 2, 3, 4, 5, 6]);

    const applied = await runCli(['duplicates', 'legacy_prices', '--key', 'ref', '--keep', 'newest', '--by', 'id', '--apply'], env);
    expect(applied.code, applied.stderr).toBe(0);
    expect(applied.stdout).toContain('removed 3 rows of legacy_prices (copied first to legacy_prices_duplicates); created the unique index legacy_prices_ref_uq on (ref)');
    expect(await ids('legacy_prices')).toEqual([3, 5, 6]);
    expect(await ids('legacy_prices_duplicates')).toEqual([1, 2, 4]);
    const copied = await db.knex('legacy_prices_duplicates').where({ id: 2 }).first();
    expect([copied.ref, String(copied.price), Number(copied.qty)]).toEqual(['A', '1.10', 1]);
    // The unique index holds the key from now on.
    await expect(db.knex('legacy_prices').insert({ ref: 'C', price: '1.00', qty: 1 })).rejects.toThrow();
    const again = await runCli(['duplicates', 'legacy_prices', '--key', 'ref', '--keep', 'newest', '--by', 'id', '--apply'], env);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toContain('removed 0 rows of legacy_prices');
    expect(again.stdout).toContain('the unique index legacy_prices_ref_uq on (ref) exists already');

    const made = await runCli(['migrate', '--make', 'adopt_legacy_prices'], env);
    expect(made.code, made.stderr).toBe(0);
    const [file] = readdirSync(path.join(project.dir, 'migrations'));
    const source = readFileSync(path.join(project.dir, 'migrations', file!), 'utf8');
    expect(source).toContain("await idem.adoptTable({\n    staging: 'stg_legacy_prices', target: 'legacy_prices',\n    sourceSystem: \"legacy\",\n    key: 'ref',");
    // The key's own column is not declared: its values become the source references, then it goes.
    expect(source.indexOf("drop: ['ref']")).toBeGreaterThan(source.indexOf('adoptTable'));
    expect((await runCli(['migrate'], env)).code).toBe(0);
    const adopted = await db.knex('legacy_prices').select('id', 'source_system', 'source_reference', 'first_run_key').orderBy('id');
    expect(adopted.map((row) => ({ ...row, id: Number(row.id) }))).toEqual([
      { id: 3, source_system: 'legacy', source_reference: 'A', first_run_key: 'adopted' },
      { id: 5, source_system: 'legacy', source_reference: 'B', first_run_key: 'adopted' },
      { id: 6, source_system: 'legacy', source_reference: 'C', first_run_key: 'adopted' },
    ]);
    const drift = await runCli(['migrate', '--make'], env);
    expect(drift.stdout).toContain('no differences');

    // A as adopted (unchanged: its row hash was computed as a run computes it), B changed, D new.
    writeFileSync(path.join(project.dataDir, `${DAY}.csv`), 'ref,price,qty\nA,1.20,2\nB,6.00,5\nD,2.00,1\n');
    const run = await runCli(['run', 'prices', '--date', DAY], env);
    expect(run.code, run.stderr).toBe(0);
    expect(summaryOf(run).counts.upsert).toMatchObject({ inserted: 1, updated: 1, unchanged: 1 });
    const rows = await db.knex('legacy_prices').select('source_reference', 'price', 'last_changed_run_key').orderBy('source_reference');
    expect(rows.map((row) => [row.source_reference, String(row.price), row.last_changed_run_key])).toEqual([
      ['A', '1.20', 'adopted'],
      ['B', '6.00', DAY],
      ['C', '9.99', 'adopted'],
      ['D', '2.00', DAY],
    ]);
    expect(existsSync(path.join(project.dir, 'migrations', file!))).toBe(true);
  });

  it('--keep refuses a table with no one-column primary key (exit 2), and migrate --make a pipeline whose key names no column', async () => {
    await db.knex.schema.createTable('no_key', (t) => {
      db.adapter.addColumn(t, 'ref', column.text({ maxLength: 50 }));
      db.adapter.addColumn(t, 'n', column.integer());
    });
    await db.knex('no_key').insert([{ ref: 'A', n: 1 }, { ref: 'A', n: 2 }]);
    const listed = await runCli(['duplicates', 'no_key', '--key', 'ref', '--json'], env);
    expect(listed.code).toBe(3);
    expect(JSON.parse(listed.stdout).groups[0].rows.map((row: { ref: string; n: unknown }) => [row.ref, Number(row.n)])).toEqual([['A', 1], ['A', 2]]);
    const keep = await runCli(['duplicates', 'no_key', '--key', 'ref', '--keep', 'newest', '--by', 'n'], env);
    expect(keep.code).toBe(2);
    expect(keep.stderr).toContain('table no_key has no primary key: --keep needs a one-column primary key');
    const apply = await runCli(['duplicates', 'no_key', '--key', 'ref', '--apply'], env);
    expect(apply.code).toBe(2);
    expect(apply.stderr).toContain('--apply needs --keep newest|oldest --by COLUMN');

    expect((await runCli(['migrate'], env)).code).toBe(0);
    project.writePipeline('prices', PIPELINE.replace("key: 'ref'", "key: 'code'"));
    const refused = await runCli(['migrate', '--make'], env);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain("table legacy_prices exists and was not created by idem; idem migrate --make adopts such a table when the pipeline's key names its columns (it has no column code)");
  });
});
