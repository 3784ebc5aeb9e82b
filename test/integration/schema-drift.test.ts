import { cpSync, existsSync, mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import type { Database } from '../../src/db/database.ts';
import { openDatabase } from '../../src/db/open-database.ts';
import { findSchemaDrift } from '../../src/migration/find-schema-drift.ts';
import { loadPipeline } from '../../src/pipeline/load-pipeline.ts';
import { createTestDatabase, describeEachDialect, type TestDatabase } from '../helpers/dialects.ts';
import { runCli, startCli, summaryOf } from '../helpers/run-cli.ts';
import { createScratchProject, type ScratchProject } from '../helpers/scratch-project.ts';
import { waitForLogLine } from '../helpers/wait-for-log-line.ts';

const DAY = '2026-03-02';
const TABLES = "{ staging: 'stg_prices', target: 'prices' }";
const MIGRATED_COLUMNS = '{ price: column.decimal(10, 8), qty: column.integer() }';

/** A CSV pipeline `prices` (ref, price, qty, note) with the given columns and values. */
function pipelineSource(columns: string, values: string): string {
  return `import { z } from 'zod';
import { column, csvSource, definePipeline, type PipelineRecord, type SourceRow } from 'idem';

type Row = { ref: string; price: string; qty: string; note: string };
async function* records(rows: AsyncIterable<SourceRow<Row>>): AsyncGenerator<PipelineRecord> {
  for await (const row of rows) {
    const v = row.value;
    yield { sourceReference: v.ref, line: row.line, values: ${values} };
  }
}

export const pipeline = definePipeline({
  name: 'prices',
  sourceSystem: 'test',
  timeZone: 'UTC',
  source: csvSource({
    directory: 'data',
    fileForDate: (d) => \`\${d}.csv\`,
    header: ['ref', 'price', 'qty', 'note'],
    row: z.object({ ref: z.string(), price: z.string(), qty: z.string(), note: z.string() }),
  }),
  toRecords: records,
  tables: ${TABLES},
  columns: ${columns},
  duplicateKeys: 'error',
});
`;
}

const MIGRATION = `import type { Knex } from 'knex';
import { column, type MigrationContext } from 'idem';
export async function up(_knex: Knex, idem: MigrationContext): Promise<void> {
  await idem.createPipelineTables({ ...${TABLES}, columns: ${MIGRATED_COLUMNS} });
}
export async function down(_knex: Knex, idem: MigrationContext): Promise<void> {
  await idem.dropPipelineTables(${TABLES});
}
`;

const CSV = 'ref,price,qty,note\nA,2.55000000,3,first\nB,0.12345678,10,\nC,10.50000000,1,third\n';

describeEachDialect('schema drift: columns against the live tables, before any write', (dialect) => {
  let testDb: TestDatabase;
  /** The project the commands run in now: the last of {@link projects}. */
  let project: ScratchProject;
  /** This test's projects: the first, then a copy for each module changed (see {@link changeModule}). */
  let projects: ScratchProject[];
  let db: Database;
  let env: Record<string, string>;

  beforeEach(async (context) => {
    testDb = await createTestDatabase(dialect, context.task.name);
    project = createScratchProject('drift');
    projects = [project];
    env = { DATABASE_URL: testDb.url, IDEM_PROJECT_DIR: project.dir, IDEM_SOURCE_DIR: project.dataDir };
    writeFileSync(path.join(project.dataDir, `${DAY}.csv`), CSV);
    db = await openDatabase({ databaseUrl: testDb.url, projectDir: project.dir });
  });

  afterEach(async () => {
    // This test's own, even if a slow hook overlaps the next test's setup.
    const [mine, database, scratch] = [db, testDb, projects];
    for (const each of scratch) each.remove();
    await mine.close();
    await database.drop();
  });

  /**
   * Writes `relative` (a module of the project) with `source`, as its user edits it between two
   * commands. A process loads a module once per URL, and the commands run in this process
   * (runCli), as does loadPipeline below: a module written again in place would still be the old
   * one here (and send every later command to a child process, ~1.2 s of CPU each). So a module
   * already written is changed in a copy of the project (its migrations and pipelines; the same
   * data directory and database), whose file URL nothing has imported yet, and the commands after
   * run there: each reads the new source, as a new CLI process would.
   */
  function changeModule(relative: string, source: string): void {
    if (existsSync(path.join(project.dir, relative))) {
      const copy = createScratchProject('drift');
      for (const sub of ['migrations', 'pipelines']) cpSync(path.join(project.dir, sub), path.join(copy.dir, sub), { recursive: true });
      projects.push(copy);
      project = copy;
      env.IDEM_PROJECT_DIR = copy.dir;
    }
    writeFileSync(path.join(project.dir, relative), source);
  }

  function writePipeline(source: string): void {
    changeModule(path.join('pipelines', 'prices.ts'), source);
  }

  async function cli(args: string[]) {
    return runCli(args, env);
  }

  /** Every row of the tables a run writes, to show a refused run wrote nothing. */
  async function snapshot(): Promise<Record<string, unknown[]>> {
    const tables: Record<string, string> = { prices: 'id', stg_prices: 'seq', job_runs: 'id', post_ledger: 'id', quarantine: 'id' };
    const out: Record<string, unknown[]> = {};
    for (const [table, order] of Object.entries(tables)) out[table] = await db.knex(table).select('*').orderBy(order);
    return out;
  }

  async function migrateAndRunClean(): Promise<void> {
    project.writeMigration('20261202000000_create_prices', MIGRATION);
    writePipeline(pipelineSource(MIGRATED_COLUMNS, '{ price: v.price, qty: Number(v.qty) }'));
    const migrated = await cli(['migrate']);
    expect(migrated.code, migrated.stderr).toBe(0);
    const first = await cli(['run', 'prices', '--date', DAY]);
    expect(first.code, first.stdout + first.stderr).toBe(0);
    expect(summaryOf(first).counts.upsert).toMatchObject({ inserted: 3 });
  }

  it('a changed type and nullability: exit 2 with the column-by-column diff and the fix; nothing written', async () => {
    await migrateAndRunClean();
    const before = await snapshot();
    expect(before.prices).toHaveLength(3);
    expect(before.job_runs).toHaveLength(1);
    // The bug seen on main: text() against a migrated decimal(10,8) (399 false updates); and an
    // integer column declared as nullable text, which every dialect's catalog shows.
    writePipeline(pipelineSource('{ price: column.text(), qty: column.text({ nullable: true }) }', '{ price: v.price, qty: v.qty }'));
    const refused = await cli(['run', 'prices', '--date', DAY, '--force']);
    expect(refused.code, refused.stdout + refused.stderr).toBe(2);
    const lines = refused.stderr.split('\n');
    expect(refused.stderr).toContain('schema drift in pipeline prices');
    expect(refused.stderr).toContain('nothing was written');
    expect(lines.find((line) => /^table\s+column\s+pipeline declares\s+needs\s+database has$/.test(line))).toBeDefined();
    const qtyLine = (table: string) => lines.find((line) => line.startsWith(`${table} `) && /\sqty\s/.test(line));
    const liveQty = { sqlite: 'integer', postgres: 'bigint', mysql: 'bigint', mssql: 'bigint' }[dialect];
    const textType = { sqlite: 'text', postgres: 'text', mysql: 'longtext', mssql: 'nvarchar(max)' }[dialect];
    for (const table of ['stg_prices', 'prices']) {
      expect(qtyLine(table)).toMatch(new RegExp(`^${table}\\s+qty\\s+column\\.text\\(\\{ nullable: true \\}\\)\\s+${textType.replace(/[()]/g, '\\$&')} null\\s+${liveQty} not null$`));
    }
    const priceLine = lines.find((line) => line.startsWith('prices ') && /\sprice\s/.test(line));
    if (dialect === 'sqlite') expect(priceLine).toBeUndefined(); // both text in SQLite: not visible
    else expect(priceLine).toMatch(new RegExp(`column\\.text\\(\\)\\s+${textType.replace(/[()]/g, '\\$&')} not null\\s+${dialect === 'postgres' ? 'numeric' : 'decimal'}\\(10,8\\) not null$`));
    expect(refused.stderr).toContain('fix: idem migrate --make alter_prices');
    expect(refused.stderr).not.toMatch(/\n\s+at /); // no stack trace
    expect(await snapshot()).toEqual(before);

    // idem check finds the same differences, one line each, without running anything.
    const checked = await cli(['check', 'prices']);
    expect(checked.code, checked.stderr).toBe(2);
    const checkLines = checked.stdout.trimEnd().split('\n');
    for (const table of ['stg_prices', 'prices']) {
      const role = table === 'prices' ? 'target' : 'staging';
      expect(checkLines).toContain(
        `pipelines/prices.ts: schema drift: ${role} table ${table} column qty: the pipeline needs ${textType} null, the database has ${liveQty} not null; fix: idem migrate --make alter_prices`,
      );
    }
    expect(checkLines.at(-1)).toBe(`${dialect === 'sqlite' ? 2 : 4} problems in 1 of 1 pipeline`);
    expect(await snapshot()).toEqual(before);
  });

  it('a migration applied while a backfill runs: its next date refuses (exit 2) and writes nothing; the date before stays completed', async () => {
    await migrateAndRunClean();
    const [second, third] = ['2026-03-03', '2026-03-04'];
    for (const date of [second, third]) writeFileSync(path.join(project.dataDir, `${date}.csv`), CSV.replace(/^([ABC]),/gm, `$1${date.slice(-1)},`));
    // The backfill is held at the end of its first date while the table changes under it.
    const release = path.join(mkdtempSync(path.join(tmpdir(), 'idem-drift-')), 'release');
    const backfill = startCli(['backfill', 'prices', '--from', second, '--to', third], { ...env, IDEM_FAILPOINTS: `before-complete=wait:${release}` });
    await waitForLogLine(backfill, (line) => line.failpoint === 'before-complete' && line.runKey === second);
    await db.knex.schema.alterTable('prices', (table) => table.dropColumn('qty'));
    writeFileSync(release, '');
    const ended = await backfill.done;
    expect(ended.code, ended.stdout + ended.stderr).toBe(2);
    expect(ended.stdout + ended.stderr).toContain('schema drift in pipeline prices');
    const runs = (await db.knex('job_runs').select('run_key', 'status').orderBy('run_key')) as { run_key: string; status: string }[];
    expect(runs).toEqual([{ run_key: DAY, status: 'completed' }, { run_key: second, status: 'completed' }]);
    expect(await db.knex('prices').count({ n: '*' }).then((rows) => Number(rows[0]!.n))).toBe(6);
  });

  it('a missing migration: exit 2 naming the tables and the fix, not a raw database error; nothing written', async () => {
    const migrated = await cli(['migrate']);
    expect(migrated.code, migrated.stderr).toBe(0);
    writePipeline(pipelineSource(MIGRATED_COLUMNS, '{ price: v.price, qty: Number(v.qty) }'));
    const before = await snapshot().catch(() => undefined);
    expect(before).toBeUndefined(); // the pipeline's tables do not exist
    const refused = await cli(['run', 'prices', '--date', DAY]);
    expect(refused.code, refused.stdout + refused.stderr).toBe(2);
    expect(refused.stderr).toContain('table(s) stg_prices, prices do not exist (a migration is missing)');
    expect(refused.stderr).toMatch(/^stg_prices\s+\(table\)\s+staging table of prices\s+no such table$/m);
    expect(refused.stderr).toContain('fix: idem migrate --make create_prices');
    expect(refused.stderr).not.toMatch(/no such table: |does not exist\n\s+at /);
    expect(await db.knex('job_runs').count({ n: '*' })).toEqual([{ n: expect.anything() }]);
    expect(Number((await db.knex('job_runs').count({ n: '*' }))[0]!.n)).toBe(0);
  });

  it('idem check on a database not migrated yet: checks the pipelines against the migration files, writes nothing, and its fix works', async () => {
    project.writeMigration('20261202000000_create_prices', MIGRATION);
    writePipeline(pipelineSource(MIGRATED_COLUMNS, '{ price: v.price, qty: Number(v.qty) }'));
    const clean = await cli(['check', 'prices']);
    expect(clean.code, clean.stdout + clean.stderr).toBe(0);
    expect(clean.stdout).toBe('1 pipeline checked: no problems\n');
    // It read the database and wrote nothing there: not even knex's migrations table.
    expect(await db.adapter.readTableColumns(db.knex, 'knex_migrations')).toBeUndefined();

    // A column the migration files do not add is drift there, with a fix that first migrates.
    const noted = '{ price: column.decimal(10, 8), qty: column.integer(), note: column.text({ nullable: true }) }';
    writePipeline(pipelineSource(noted, "{ price: v.price, qty: Number(v.qty), note: v.note === '' ? null : v.note }"));
    const drift = await cli(['check', 'prices']);
    expect(drift.code, drift.stdout + drift.stderr).toBe(2);
    const fix = 'fix: idem migrate, then idem migrate --make alter_prices';
    expect(drift.stdout.split('\n')).toEqual([
      `pipelines/prices.ts: schema drift: staging table stg_prices column note: the pipeline needs text null, the database has no such column (in the migration files; the database is not migrated yet); ${fix}`,
      `pipelines/prices.ts: schema drift: target table prices column note: the pipeline needs text null, the database has no such column (in the migration files; the database is not migrated yet); ${fix}`,
      '2 problems in 1 of 1 pipeline',
      '',
    ]);
    expect(await db.adapter.readTableColumns(db.knex, 'knex_migrations')).toBeUndefined();
    for (const args of [['migrate'], ['migrate', '--make', 'alter_prices'], ['migrate'], ['check', 'prices']]) {
      const step = await cli(args);
      expect(step.code, `${args.join(' ')}: ${step.stdout}${step.stderr}`).toBe(0);
    }
    expect(await findSchemaDrift(db, await loadPipeline(project.dir, 'prices'))).toEqual([]);
  });

  it('idem check on a database not migrated yet, with a migration that does not apply to SQLite: says to migrate first', async () => {
    project.writeMigration('20261202000000_create_prices', MIGRATION);
    project.writeMigration(
      '20261202000001_server_only',
      "import type { Knex } from 'knex';\nexport async function up(knex: Knex): Promise<void> {\n  if (knex.client.config.client === 'better-sqlite3') throw new Error('written for a database server');\n}\nexport async function down(): Promise<void> {}\n",
    );
    writePipeline(pipelineSource(MIGRATED_COLUMNS, '{ price: v.price, qty: Number(v.qty) }'));
    const refused = await cli(['check', 'prices']);
    expect(refused.code, refused.stdout + refused.stderr).toBe(2);
    expect(refused.stdout).toMatch(/^pipelines\/prices\.ts: the database is not migrated \([1-9]\d* pending\)/m);
    expect(refused.stdout).toContain('written for a database server');
    expect(refused.stdout).toContain('run `idem migrate`, then idem check');
    if (dialect !== 'sqlite') {
      expect((await cli(['migrate'])).code).toBe(0);
      const checked = await cli(['check', 'prices']);
      expect(checked.code, checked.stdout + checked.stderr).toBe(0);
    }
  });

  it('migrate --make: an added column and a type change; make → migrate → run is clean and drift-free', async () => {
    await migrateAndRunClean();
    const changedColumns = '{ price: column.decimal(10, 8), qty: column.decimal(12, 2), note: column.text({ nullable: true }) }';
    writePipeline(pipelineSource(changedColumns, "{ price: v.price, qty: `${v.qty}.00`, note: v.note === '' ? null : v.note }"));
    const before = await snapshot();

    const made = await cli(['migrate', '--make', 'qty_decimal_and_note']);
    expect(made.code, made.stdout + made.stderr).toBe(0);
    const file = readdirSync(path.join(project.dir, 'migrations')).find((name) => name.endsWith('_qty_decimal_and_note.ts'));
    expect(file).toBeDefined();
    expect(file! > '20261202000000_create_prices.ts').toBe(true);
    expect(made.stdout).toContain(`wrote migrations/${file}`);
    const source = readFileSync(path.join(project.dir, 'migrations', file!), 'utf8');
    for (const table of ['stg_prices', 'prices']) {
      expect(source).toContain(`await idem.alterColumns('${table}', {\n    add: {\n      note: column.text({ nullable: true }),\n    },\n    alter: {\n      qty: column.decimal(12, 2),\n    },\n  });`);
      expect(source).toContain(`await idem.alterColumns('${table}', { drop: ['note'] });`);
    }
    expect(await snapshot()).toEqual(before); // --make applies nothing

    // A run before the migration is applied: refused (pending migration).
    const early = await cli(['run', 'prices', '--date', DAY, '--force']);
    expect(early.code).toBe(2);

    const migrated = await cli(['migrate']);
    expect(migrated.code, migrated.stdout + migrated.stderr).toBe(0);
    expect(await findSchemaDrift(db, await loadPipeline(project.dir, 'prices'))).toEqual([]);
    if (dialect === 'sqlite') {
      // SQLite alters a column by copying the table: the key indexes must survive it.
      const indexes = await db.knex.raw("select name from sqlite_master where type = 'index' and tbl_name in ('prices', 'stg_prices') order by name");
      expect(indexes.map((row: { name: string }) => row.name)).toEqual(['prices_key_uq', 'sqlite_autoindex_stg_prices_1', 'stg_prices_key_idx']); // the last two: seq's primary key and the staging key index
    }
    const again = await cli(['migrate', '--make']);
    expect(again.code).toBe(0);
    expect(again.stdout).toContain('no differences');

    const run = await cli(['run', 'prices', '--date', DAY, '--force']);
    expect(run.code, run.stdout + run.stderr).toBe(0);
    // The new note values are real changes (A and C); B's note stays null and its qty is equal.
    const rows = await db.knex('prices').select('source_reference', 'qty', 'note').orderBy('source_reference');
    expect(rows.map((row) => ({ ...row, qty: db.adapter.fromDriverValue({ type: 'decimal', precision: 12, scale: 2, nullable: false }, row.qty) }))).toEqual([
      { source_reference: 'A', qty: '3.00', note: 'first' },
      { source_reference: 'B', qty: '10.00', note: null },
      { source_reference: 'C', qty: '1.00', note: 'third' },
    ]);
    const rerun = await cli(['run', 'prices', '--date', DAY, '--force']);
    expect(rerun.code, rerun.stdout + rerun.stderr).toBe(0);
    expect(summaryOf(rerun).counts.upsert).toMatchObject({ inserted: 0, updated: 0 });
  });
  it('migrate --make for a new NOT NULL column on a table with rows: add nullable, fill, set NOT NULL; refused before any change while fill is unset', async () => {
    await migrateAndRunClean();
    const regioned = "{ price: column.decimal(10, 8), qty: column.integer(), region: column.text({ maxLength: 10 }) }";
    writePipeline(pipelineSource(regioned, "{ price: v.price, qty: Number(v.qty), region: v.note === '' ? 'none' : v.note }"));
    const made = await cli(['migrate', '--make', 'add_region']);
    expect(made.code, made.stdout + made.stderr).toBe(0);
    const file = path.join(project.dir, 'migrations', readdirSync(path.join(project.dir, 'migrations')).find((name) => name.endsWith('_add_region.ts'))!);
    const source = readFileSync(file, 'utf8');
    for (const table of ['stg_prices', 'prices']) {
      expect(source).toContain(`await idem.alterColumns('${table}', {\n    add: {\n      region: column.text({ maxLength: 10 }),\n    },\n`);
    }
    expect(source.match(/ {4}fill: \{\n {6}region: undefined,\n {4}\},/g)).toHaveLength(2);

    // As written: the target has rows and no value for them, so nothing changes, on MySQL too.
    const refused = await cli(['migrate']);
    expect(refused.code, refused.stdout + refused.stderr).not.toBe(0);
    expect(refused.stderr).toContain('table prices has rows, and the new NOT NULL column region has no value for them');
    expect((await db.adapter.readTableColumns(db.knex, 'prices'))!.map((c) => c.name)).not.toContain('region');
    expect((await db.adapter.readTableColumns(db.knex, 'stg_prices'))!.map((c) => c.name)).not.toContain('region');

    // With a value: the three steps on a table with rows, then NOT NULL in the catalog.
    changeModule(path.relative(project.dir, file), source.replaceAll('region: undefined,', "region: 'unknown',"));
    const migrated = await cli(['migrate']);
    expect(migrated.code, migrated.stdout + migrated.stderr).toBe(0);
    expect(await findSchemaDrift(db, await loadPipeline(project.dir, 'prices'))).toEqual([]);
    expect((await db.adapter.readTableColumns(db.knex, 'prices'))!.find((c) => c.name === 'region')).toMatchObject({ nullable: false });
    expect(await db.knex('prices').select('source_reference', 'region').orderBy('source_reference')).toEqual([
      { source_reference: 'A', region: 'unknown' },
      { source_reference: 'B', region: 'unknown' },
      { source_reference: 'C', region: 'unknown' },
    ]);
    const run = await cli(['run', 'prices', '--date', DAY, '--force']);
    expect(run.code, run.stdout + run.stderr).toBe(0);
    expect(summaryOf(run).counts.upsert).toMatchObject({ inserted: 0, updated: 3 });
    expect(await db.knex('prices').orderBy('source_reference').pluck('region')).toEqual(['first', 'none', 'third']);
  });
});
