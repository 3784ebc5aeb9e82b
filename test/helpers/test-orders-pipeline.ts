import path from 'node:path';
import { pino } from 'pino';
import { z } from 'zod';
import { loadConfig } from '../../src/config/load-config.ts';
import type { Database } from '../../src/db/database.ts';
import { createMigrationContext } from '../../src/migration/create-migration-context.ts';
import { column } from '../../src/column/column-type.ts';
import { definePipeline } from '../../src/pipeline/define-pipeline.ts';
import type { DuplicateKeyRule } from '../../src/pipeline/pipeline-definition.ts';
import { runPipeline } from '../../src/runner/run-pipeline.ts';
import { fileRunKey } from '../../src/runs/run-key.ts';
import { csvSource } from '../../src/source/csv/csv-source.ts';

/** The test-orders pipeline's tables and its one business column. */
export const TEST_ORDERS_TABLES = { staging: 'stg_test_orders', target: 'test_orders' };
const COLUMNS = { amount: column.decimal(10, 2) };

/** A pipeline with no destination: one `test_orders` row (an `amount`) per `ref` of a `ref,amount` CSV. */
export function testOrdersPipeline(duplicateKeys: DuplicateKeyRule) {
  return definePipeline({
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
    tables: TEST_ORDERS_TABLES,
    columns: COLUMNS,
    duplicateKeys,
  });
}

/** Creates the test-orders tables in a migrated database. */
export async function createTestOrdersTables(db: Database): Promise<void> {
  await createMigrationContext(db.knex, db.adapter).createPipelineTables({ ...TEST_ORDERS_TABLES, columns: COLUMNS });
}

/** Runs the test-orders pipeline in process for `file` (its run key), logging nothing. */
export async function runTestOrders(
  db: Database,
  databaseUrl: string,
  file: string,
  options: { duplicateKeys?: DuplicateKeyRule; batchRows?: number; force?: boolean; forceReconcile?: boolean } = {},
) {
  const config = { ...loadConfig({}, path.dirname(file)), databaseUrl };
  const { duplicateKeys = 'error', batchRows, force = false, forceReconcile = false } = options;
  return runPipeline(
    { config, db, logger: pino({ level: 'silent' }) },
    { pipeline: testOrdersPipeline(duplicateKeys), runKey: await fileRunKey(file), triggeredBy: 'test', force, forceReconcile, ...(batchRows === undefined ? {} : { batchRows }) },
  );
}
