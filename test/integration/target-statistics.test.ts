import { afterEach, beforeEach, expect, it } from 'vitest';
import type { Database } from '../../src/db/database.ts';
import { createTestDatabase, describeEachDialect, type TestDatabase } from '../helpers/dialects.ts';
import { writeTempSource } from '../helpers/fixtures.ts';
import { openMigratedDatabase } from '../helpers/test-db.ts';
import { createTestOrdersTables, runTestOrders, TEST_ORDERS_TABLES } from '../helpers/test-orders-pipeline.ts';

/** A CSV of orders `O<from>` … `O<from + n - 1>`. */
const ordersFile = (name: string, n: number, from: number): string =>
  `${writeTempSource(name, `${['ref,amount', ...Array.from({ length: n }, (_, i) => `O${from + i},${(from + i) % 100}.50`)].join('\n')}\n`)}/${name}`;

// The post stage reads the target rows it sends by key right after the upsert commits: a large
// upsert leaves statistics that count its rows (PostgreSQL; MySQL/MariaDB and SQL Server keep
// their own, SQLite plans from its indexes).
describeEachDialect('the target after a large upsert', (dialect) => {
  let testDb: TestDatabase;
  let db: Database;

  beforeEach(async (context) => {
    testDb = await createTestDatabase(dialect, context.task.name);
    db = await openMigratedDatabase(testDb.url);
    await createTestOrdersTables(db);
    // Only idem may analyse it here: an autoanalyze between two assertions would pass for idem's.
    if (dialect === 'postgres') await db.knex.raw(`alter table ${TEST_ORDERS_TABLES.target} set (autovacuum_enabled = false)`);
  });

  afterEach(async () => {
    await db.close();
    await testDb.drop();
  });

  const reltuples = async (): Promise<number> =>
    (await db.knex.raw('select reltuples::int as n from pg_class where relname = ?', [TEST_ORDERS_TABLES.target])).rows[0].n;

  it('is counted after a first import of 1,500 rows, and left alone by a day of 300 more', async () => {
    const firstFile = ordersFile('orders-first.csv', 1500, 1);
    const first = await runTestOrders(db, testDb.url, firstFile);
    expect(first.outcome).toBe('completed');
    expect(first.counts.upsert).toMatchObject({ inserted: 1500, updated: 0 });
    if (dialect === 'postgres') expect(await reltuples()).toBe(1500);

    const day = await runTestOrders(db, testDb.url, ordersFile('orders-day.csv', 300, 1501));
    expect(day.counts.upsert).toMatchObject({ inserted: 300, updated: 0 });
    expect(Number((await db.knex(TEST_ORDERS_TABLES.target).count({ n: '*' }))[0]!.n)).toBe(1800);
    if (dialect === 'postgres') expect(await reltuples()).toBe(1500);

    // The first file again: a completed run key, so nothing is read or written.
    const again = await runTestOrders(db, testDb.url, firstFile);
    expect(again.outcome).toBe('noop');
    expect(again.exitCode).toBe(0);
  });
});
