import v8 from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { openDatabase } from '../../src/db/open-database.ts';
import type { Database } from '../../src/db/database.ts';
import { readSqlRows } from '../../src/source/sql/read-sql-rows.ts';
import { sqlSource } from '../../src/source/sql/sql-source.ts';
import { seedShop, shopOrders } from '../../scripts/seed-shop.ts';
import { createTestDatabase, describeEachDialect, type TestDatabase } from '../helpers/dialects.ts';
import { PROJECT_DIR, runCli, summaryOf } from '../helpers/run-cli.ts';
import { createScratchProject, type ScratchProject } from '../helpers/scratch-project.ts';

// How a SQL source's failures end a run, on each dialect: a query the database refuses exits 2
// naming the source and the database's words, a failure after the first rows exits 1, and a
// query built as text is refused when the module is imported. Nothing is upserted in any of them.
// And the read's memory stays flat in the result's size.

const PIPELINE = `import { column, definePipeline, sqlSource } from 'idem';

const CASE = process.env.SQL_CASE ?? 'plain';
const LAST = process.env.SQL_LAST_ORDER ?? '';

export const pipeline = definePipeline({
  name: 'shop-cases',
  sourceSystem: 'shop',
  timeZone: 'Europe/London',
  source: sqlSource({
    database: 'shop',
    fetchRows: 5,
    query: (db, { start, end }) => {
      const orders = db('orders').select('order_id', 'total').where('shipped_at', '>=', start).andWhere('shipped_at', '<', end).orderBy('order_id');
      if (CASE === 'no-such-column') return orders.select('discount');
      // A scalar subquery that returns many rows for the date's last order only: the server
      // fails that row, after it sent the ones before it (PostgreSQL and MariaDB: SQLSTATE 21000).
      if (CASE === 'late-failure') return orders.select(db('orders as twin').select('twin.order_id').whereRaw('twin.order_id = orders.order_id or orders.order_id = ?', [LAST]).as('twin'));
      // SQLite has no such rule; abs() of the least integer overflows, for that row only.
      // (Unordered: a sort would compute every row before the first is returned.)
      if (CASE === 'late-overflow') return orders.clearOrder().select(db.raw('abs(case when order_id = ? then -9223372036854775807 - 1 else 0 end) as boom', [LAST]));
      if (CASE === 'text') return ("select * from orders where shipped_at >= '" + String(start) + "'") as never;
      if (CASE === 'raw') return db.raw("select * from orders where shipped_at >= '" + String(start) + "'") as never;
      if (CASE === 'delete') return db('orders').where('shipped_at', '<', start).delete() as never;
      return orders;
    },
  }),
  key: 'order_id',
  tables: { staging: 'stg_shop_cases', target: 'shop_cases' },
  columns: { total: column.decimal(14, 3) },
});
`;

const MIGRATION = `import type { Knex } from 'knex';
import { column, type MigrationContext } from 'idem';

export async function up(_knex: Knex, idem: MigrationContext): Promise<void> {
  await idem.createPipelineTables({ staging: 'stg_shop_cases', target: 'shop_cases', columns: { total: column.decimal(14, 3) } });
}

export async function down(_knex: Knex, idem: MigrationContext): Promise<void> {
  await idem.dropPipelineTables({ staging: 'stg_shop_cases', target: 'shop_cases' });
}
`;

const DATE = '2010-12-02';
const ON_DATE = shopOrders().filter((order) => order.shipped_at >= '2010-12-02T00:00:00.000Z' && order.shipped_at < '2010-12-03T00:00:00.000Z');
const LAST_ORDER = ON_DATE.map((order) => order.order_id).sort().at(-1)!;

describeEachDialect('sqlSource: a refused query, a failure half-way, a query built as text, memory', (dialect) => {
  let project: ScratchProject;
  let shop: TestDatabase;
  let target: TestDatabase;
  let db: Database;
  let env: Record<string, string>;

  beforeAll(async () => {
    project = createScratchProject('sql-cases');
    project.writePipeline('shop-cases', PIPELINE);
    project.writeMigration('20270101000000_create_shop_cases', MIGRATION);
    [shop, target] = await Promise.all([createTestDatabase(dialect, 'shop'), createTestDatabase(dialect, 'shop_cases')]);
    await seedShop(shop.url, PROJECT_DIR);
    // IDEM_TEST_CHILD: each command a child process, since the pipeline module reads its SQL_* case
    // from the environment when it loads, and a process loads a module once.
    env = { IDEM_PROJECT_DIR: project.dir, DATABASE_URL: target.url, IDEM_SOURCES: JSON.stringify({ shop: { url: shop.url } }), SQL_LAST_ORDER: LAST_ORDER, IDEM_TEST_CHILD: '1' };
    const migrated = await runCli(['migrate'], env);
    expect(migrated.code, migrated.stderr).toBe(0);
    db = await openDatabase({ databaseUrl: target.url, projectDir: project.dir });
  }, 120_000);

  afterAll(async () => {
    await db?.close();
    await Promise.all([shop?.drop(), target?.drop()]);
    project?.remove();
  });

  const nothingUpserted = async () => expect(Number((await db.knex('shop_cases').count({ n: '*' }))[0]!.n)).toBe(0);

  it('a query the database refuses (no such column) exits 2, naming the source and the database\'s words', { timeout: 60_000 }, async () => {
    const run = await runCli(['run', 'shop-cases', '--date', DATE], { ...env, SQL_CASE: 'no-such-column' });
    expect(run.code, run.stderr).toBe(2);
    const message = summaryOf(run).err.message as string;
    expect(message).toMatch(/^source database "shop" refused the query: .*discount/);
    expect(message).toContain('fix the pipeline\'s query (a rerun cannot)');
    await nothingUpserted();
  });

  it('a failure after the first rows exits 1, naming how many rows were read; nothing is upserted, and a rerun completes', { timeout: 60_000 }, async () => {
    const run = await runCli(['run', 'shop-cases', '--date', DATE], { ...env, SQL_CASE: dialect === 'sqlite' ? 'late-overflow' : 'late-failure' });
    expect(run.code, run.stderr).toBe(1);
    expect(summaryOf(run).err.type).toBe('SourceError');
    const failed = /\):(\d+): reading the query failed after (\d+) rows: /.exec(summaryOf(run).err.message as string);
    expect(failed, summaryOf(run).err.message).not.toBeNull();
    // The row that failed and the rows read before it (a cursor's whole batch fails with its row).
    expect(Number(failed![1])).toBe(Number(failed![2]) + 1);
    expect(Number(failed![2])).toBeGreaterThan(0);
    await nothingUpserted();
    expect(await db.knex('job_runs').where({ job_name: 'shop-cases', run_key: DATE }).first('status')).toEqual({ status: 'failed' });

    const rerun = await runCli(['run', 'shop-cases', '--date', DATE], env);
    expect(rerun.code, rerun.stderr).toBe(0);
    expect(Number((await db.knex('shop_cases').count({ n: '*' }))[0]!.n)).toBe(ON_DATE.length);
    await db.knex('shop_cases').delete();
    await db.knex('job_runs').where({ job_name: 'shop-cases' }).delete();
  });

  it('a query given as SQL text, as knex.raw or as a write is refused when the module is imported (exit 2)', { timeout: 60_000 }, async () => {
    for (const [variant, words] of [
      ['text', 'source.query must return a knex query builder'],
      ['raw', 'got knex.raw(…)'],
      ['delete', 'source.query must build a select (got a del)'],
    ] as const) {
      const check = await runCli(['check', 'shop-cases'], { ...env, SQL_CASE: variant });
      expect(check.code, variant).toBe(2);
      expect(check.stdout + check.stderr, variant).toContain(words);
      const run = await runCli(['run', 'shop-cases', '--date', DATE], { ...env, SQL_CASE: variant });
      expect(run.code, variant).toBe(2);
    }
    await nothingUpserted();
  });

  it('rows stream: reading a result of 200 MB holds a few MB at a time', { timeout: 120_000 }, async () => {
    // 200,000 rows of 1,000 characters each, generated by the database; every dialect's recursive CTE.
    // MariaDB stops a recursive CTE at max_recursive_iterations (1000 by default): its SEQUENCE engine counts instead.
    const source = sqlSource({
      database: 'shop',
      fetchRows: 1000,
      query: (knex) =>
        dialect === 'mysql'
          ? knex.from('seq_1_to_200000').select(knex.raw("seq as id, repeat('x', 1000) as filler"))
          : knex
              .withRecursive('n', ['i'], knex.raw('select 1 union all select i + 1 from n where i < ?', [200_000]))
              .select(knex.raw(`i as id, ${dialect === 'sqlite' ? 'hex(zeroblob(500))' : "repeat('x', 1000)"} as filler`))
              .from('n'),
    });
    const { z } = await import('zod');
    const rows = readSqlRows({ ...source, row: z.object({ id: z.number(), filler: z.string() }) }, { url: shop.url, location: 'shop', projectDir: PROJECT_DIR, businessDate: DATE, startsAt: '2010-12-02T00:00:00.000Z', endsAt: '2010-12-03T00:00:00.000Z' }, async () => undefined);
    // What the read holds, not what it has let go: heapUsed counts garbage until V8 collects it
    // (a young generation of up to 64 MB on Node 24, and other tests' garbage in a shared worker),
    // so the heap is measured after a full collection.
    v8.setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    const retained = (): number => {
      gc();
      return process.memoryUsage().heapUsed;
    };
    const before = retained();
    let peak = 0;
    let count = 0;
    let characters = 0;
    for await (const row of rows) {
      count += 1;
      characters += (row.value as { filler: string }).filler.length;
      if (count % 20_000 === 0) peak = Math.max(peak, retained() - before);
    }
    expect([count, characters]).toEqual([200_000, 200_000_000]);
    // The whole result held at once would be over 200 MB of text alone; a batch of 1,000 rows is 1 MB.
    expect(peak).toBeLessThan(16 * 1024 * 1024);
  });
});
