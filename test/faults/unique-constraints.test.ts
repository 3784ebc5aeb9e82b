import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Database } from '../../src/db/database.ts';
import { column, type ColumnSpec } from '../../src/column/column-type.ts';
import { listPipelineNames, loadPipeline } from '../../src/pipeline/load-pipeline.ts';
import type { PipelineDefinition } from '../../src/pipeline/pipeline-definition.ts';
import { createTestDatabase, describeEachDialect, type TestDatabase } from '../helpers/dialects.ts';
import { PROJECT_DIR } from '../helpers/run-cli.ts';
import { openMigratedDatabase } from '../helpers/test-db.ts';

// Behavioural, so it holds on every dialect whatever its catalogue looks like: the first row
// inserts, a row differing only in its key inserts (so the rows are otherwise valid), and a
// second row with the same key is refused with the database's unique-violation error.
const UNIQUE_VIOLATION = /unique|duplicate/i;
const NOW = '2011-01-01T00:00:00.000Z';

/** A valid canonical value of each column type. */
function sampleValue(spec: ColumnSpec): unknown {
  switch (spec.type) {
    case 'text':
      return 'x';
    case 'integer':
      return 1;
    case 'decimal':
      return spec.scale ? `1.${'0'.repeat(spec.scale)}` : '1';
    case 'date':
      return '2011-01-01';
    case 'instant':
      return NOW;
    case 'boolean':
      return true;
    case 'json':
      return { a: 1 };
  }
}

describeEachDialect('every business key is backed by a unique index in the migrated schema', (dialect) => {
  let testDb: TestDatabase;
  let db: Database;
  const instant = () => db.adapter.toDriverValue(column.instant(), NOW);

  beforeAll(async () => {
    testDb = await createTestDatabase(dialect, 'unique-constraints');
    db = await openMigratedDatabase(testDb.url);
  });

  afterAll(async () => {
    await db?.close();
    await testDb?.drop();
  });

  /** Inserts `row`, then `row` with `other`'s differences (must work), then `row` again (must fail). */
  async function expectUniqueOn(table: string, row: Record<string, unknown>, other: Record<string, unknown>): Promise<void> {
    await db.knex(table).insert(row);
    await db.knex(table).insert({ ...row, ...other });
    await expect(db.knex(table).insert(row)).rejects.toThrow(UNIQUE_VIOLATION);
    await db.knex(table).delete();
  }

  it('finds the project pipelines to check', () => {
    expect(listPipelineNames(PROJECT_DIR)).toEqual(expect.arrayContaining(['online-retail-invoices', 'online-retail-products']));
  });

  it.each(listPipelineNames(PROJECT_DIR))('%s: its target table, on (source_system, source_reference)', async (name) => {
    const pipeline: PipelineDefinition = await loadPipeline(PROJECT_DIR, name);
    const values = Object.fromEntries(Object.entries(pipeline.columns).map(([column, spec]) => [column, db.adapter.toDriverValue(spec, sampleValue(spec))]));
    const row = {
      source_system: pipeline.sourceSystem,
      source_reference: 'R1',
      ...values,
      row_hash: 'a'.repeat(64),
      first_run_key: '2011-01-01',
      last_changed_run_key: '2011-01-01',
      created_at: instant(),
      updated_at: instant(),
    };
    await expectUniqueOn(pipeline.tables.target, row, { source_reference: 'R2' });
    // The key is the pair: the same reference from another source system is another record.
    await expectUniqueOn(pipeline.tables.target, row, { source_system: `${pipeline.sourceSystem}-other` });
  });

  it('job_runs, on (job_name, run_key)', async () => {
    const row = { job_name: 'online-retail-invoices', run_key: '2011-01-01', status: 'started', attempts: 1, triggered_by: 'test', started_at: instant(), created_at: instant(), updated_at: instant() };
    await expectUniqueOn('job_runs', row, { run_key: '2011-01-02' });
    await expectUniqueOn('job_runs', row, { job_name: 'online-retail-products' });
  });

  it('post_ledger, on (destination, idempotency_key)', async () => {
    const row = {
      job_name: 'online-retail-invoices',
      destination: 'sandbox-accounting',
      source_system: 'online-retail',
      source_reference: '536365',
      row_hash: 'a'.repeat(64),
      idempotency_key: 'idem-0123456789abcdef0123456789abcdef01234567',
      run_key: '2011-01-01',
      status: 'pending',
      attempts: 0,
      created_at: instant(),
      updated_at: instant(),
    };
    await expectUniqueOn('post_ledger', row, { idempotency_key: 'idem-another-key' });
    await expectUniqueOn('post_ledger', row, { destination: 'another-destination' });
  });
});
