import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Database } from '../../src/db/database.ts';
import { column } from '../../src/column/column-type.ts';
import type { DuplicateKeyRule } from '../../src/pipeline/pipeline-definition.ts';
import { createTestDatabase, describeEachDialect, type TestDatabase } from '../helpers/dialects.ts';
import { writeTempSource } from '../helpers/fixtures.ts';
import { openMigratedDatabase } from '../helpers/test-db.ts';
import { createTestOrdersTables, runTestOrders } from '../helpers/test-orders-pipeline.ts';

// orders-duplicate-keys.csv: A twice identically, B twice with different amounts (last: 2.50).
const CSV = `${['ref,amount', 'A,1.00', 'B,2.00', 'C,3.00', 'A,1.00', 'D,4.00', 'B,2.50', 'E,5.00'].join('\n')}\n`;

describeEachDialect('duplicate keys within one run follow the pipeline rule, for any batch size', (dialect) => {
  let testDb: TestDatabase;
  let db: Database;
  let file: string;

  beforeEach(async (context) => {
    testDb = await createTestDatabase(dialect, context.task.name);
    db = await openMigratedDatabase(testDb.url);
    await createTestOrdersTables(db);
    file = path.join(writeTempSource('orders-duplicate-keys.csv', CSV), 'orders-duplicate-keys.csv');
  });

  afterEach(async () => {
    await db.close();
    await testDb.drop();
  });

  const run = (duplicateKeys: DuplicateKeyRule, batchRows: number, force = false) => runTestOrders(db, testDb.url, file, { duplicateKeys, batchRows, force });

  const target = async () =>
    (await db.knex('test_orders').select('source_reference', 'amount').orderBy('source_reference')).map(
      (r: { source_reference: string; amount: unknown }) => [r.source_reference, db.adapter.fromDriverValue(column.decimal(10, 2), r.amount)],
    );

  it.each([1, 2, 3, 1000])('last-wins keeps the last record of each key (batch %i)', async (batchRows) => {
    const result = await run('last-wins', batchRows);
    expect(result.outcome).toBe('completed');
    expect(result.counts.stage).toMatchObject({ records: 7, duplicatesRemoved: 2, staged: 5 });
    expect(await target()).toEqual([['A', '1.00'], ['B', '2.50'], ['C', '3.00'], ['D', '4.00'], ['E', '5.00']]);
  });

  it.each([1, 3, 1000])('error fails the run naming the keys and lines (batch %i)', async (batchRows) => {
    const result = await run('error', batchRows);
    expect(result.outcome).toBe('failed');
    expect(result.exitCode).toBe(1);
    expect(result.error!.message).toBe(
      "2 key(s) occur more than once in this run and the pipeline's rule is duplicateKeys: 'error': A (2×, lines 2..5), B (2×, lines 3..7)",
    );
    expect(await target()).toEqual([]);
  });

  it.each([1, 3, 1000])('collapse-identical collapses A but fails on B, whose values differ (batch %i)', async (batchRows) => {
    const result = await run('collapse-identical', batchRows);
    expect(result.outcome).toBe('failed');
    expect(result.error!.message).toContain("1 key(s) occur more than once with different values and the pipeline's rule is duplicateKeys: 'collapse-identical': B (2×, lines 3..7)");
  });

  it('collapse-identical loads a file whose duplicates are identical, and its rerun changes nothing', async () => {
    writeFileSync(file, CSV.replace('B,2.50', 'B,2.00'));
    const first = await run('collapse-identical', 2);
    expect(first.counts.stage).toMatchObject({ records: 7, duplicatesRemoved: 2, staged: 5 });
    expect(await target()).toEqual([['A', '1.00'], ['B', '2.00'], ['C', '3.00'], ['D', '4.00'], ['E', '5.00']]);
    const again = await run('collapse-identical', 5, true);
    expect(again.counts.upsert).toMatchObject({ inserted: 0, updated: 0, unchanged: 5 });
  });
});
