import path from 'node:path';
import { pino } from 'pino';
import { z } from 'zod';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load-config.ts';
import type { Database } from '../../src/db/database.ts';
import { createMigrationContext } from '../../src/migration/create-migration-context.ts';
import { column } from '../../src/pipeline/column-type.ts';
import { definePipeline } from '../../src/pipeline/define-pipeline.ts';
import { runPipeline } from '../../src/runner/run-pipeline.ts';
import { fileRunKey } from '../../src/runs/run-key.ts';
import { csvSource } from '../../src/source/csv-source.ts';
import { createTestDatabase, describeEachDialect, type TestDatabase } from '../helpers/dialects.ts';
import { writeTempSource } from '../helpers/fixtures.ts';
import { openMigratedDatabase } from '../helpers/test-db.ts';

const TABLES = { staging: 'stg_test_orders', target: 'test_orders' };
const COLUMNS = { amount: column.decimal(10, 2) };

const pipeline = definePipeline({
  name: 'test-orders',
  sourceSystem: 'test',
  timeZone: 'UTC',
  source: csvSource({ directory: '.', fileForDate: (d) => `${d}.csv`, header: ['ref', 'amount'], row: z.object({ ref: z.string(), amount: z.string() }) }),
  async *toRecords(rows) {
    for await (const row of rows) {
      const value = row.value as { ref: string; amount: string };
      yield { sourceReference: value.ref, line: row.line, values: { amount: value.amount } };
    }
  },
  tables: TABLES,
  columns: COLUMNS,
  duplicateKeys: 'error',
});

/** A CSV of orders `O<from>` … `O<from + n - 1>`. */
const ordersFile = (name: string, n: number, from: number): string =>
  path.join(writeTempSource(name, ['ref,amount', ...Array.from({ length: n }, (_, i) => `O${from + i},${(from + i) % 100}.50`)].join('\n')), name);

// The post stage reads the target rows it sends by key right after the upsert commits: a large
// upsert leaves statistics that count its rows (PostgreSQL; the other dialects keep their own).
describeEachDialect('the target after a large upsert', (dialect) => {
  let testDb: TestDatabase;
  let db: Database;

  beforeEach(async (context) => {
    testDb = await createTestDatabase(dialect, context.task.name);
    db = await openMigratedDatabase(testDb.url);
    await createMigrationContext(db.knex, db.adapter).createPipelineTables({ ...TABLES, columns: COLUMNS });
  });

  afterEach(async () => {
    await db.close();
    await testDb.drop();
  });

  const run = async (file: string) => {
    const config = { ...loadConfig({}, path.dirname(file)), databaseUrl: testDb.url };
    return runPipeline({ config, db, logger: pino({ level: 'silent' }) }, { pipeline, runKey: await fileRunKey(file), triggeredBy: 'test' });
  };
  const reltuples = async (): Promise<number> =>
    (await db.knex.raw(`select reltuples::int as n from pg_class where relname = 'test_orders'`)).rows[0].n;

  it('is counted after a first import of 1,500 rows, and left alone by a day of 300 more', async () => {
    const first = await run(ordersFile('orders-first.csv', 1500, 1));
    expect(first.outcome).toBe('completed');
    expect(first.counts.upsert).toMatchObject({ inserted: 1500, updated: 0 });
    if (dialect === 'postgres') expect(await reltuples()).toBe(1500);

    const day = await run(ordersFile('orders-day.csv', 300, 1501));
    expect(day.counts.upsert).toMatchObject({ inserted: 300, updated: 0 });
    expect(Number((await db.knex('test_orders').count({ n: '*' }))[0]!.n)).toBe(1800);
    if (dialect === 'postgres') expect(await reltuples()).toBe(1500);
  });
});
