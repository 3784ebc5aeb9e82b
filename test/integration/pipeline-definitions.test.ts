import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Database } from '../../src/db/database.ts';
import { createTestDatabase, describeEachDialect, type TestDatabase } from '../helpers/dialects.ts';
import { runCli, summaryOf } from '../helpers/run-cli.ts';
import { openTestDatabase } from '../helpers/test-db.ts';

// Pipeline modules that make a data engineer's mistakes in their own code, in
// test/fixtures/definitions-project (one module per mistake), run as `idem run P --date 2026-01-05`
// against tables that good-people has already loaded.
const PROJECT = 'test/fixtures/definitions-project';

/** Everything a run could write. */
async function readState(db: Database) {
  return {
    target: await db.knex('def_people').select('source_reference', 'name', 'city', 'qty', 'amount', 'row_hash').orderBy('source_reference'),
    staging: await db.knex('stg_def_people').select('*').orderBy('seq'),
    ledger: await db.knex('post_ledger').select('*').orderBy('id'),
    quarantine: await db.knex('quarantine').select('*').orderBy('id'),
    jobRuns: await db.knex('job_runs').select('*').orderBy('id'),
  };
}

describeEachDialect("a pipeline's own mistakes in toRecords: exit 2 naming the column, nothing written", (dialect) => {
  let testDb: TestDatabase;
  let db: Database;
  let env: Record<string, string>;

  beforeAll(async () => {
    testDb = await createTestDatabase(dialect, 'pipeline definitions');
    env = { DATABASE_URL: testDb.url, IDEM_PROJECT_DIR: PROJECT };
    const migrated = await runCli(['migrate'], env);
    expect(migrated.code, migrated.stderr).toBe(0);
    db = await openTestDatabase(testDb.url);
    const good = await runCli(['run', 'good-people', '--date', '2026-01-05'], env);
    expect(good.code, good.stderr).toBe(0);
  });

  afterAll(async () => {
    await db?.close();
    await testDb?.drop();
  });

  /** Runs `name` and checks exit 2, the message, and that only its own job_runs row (failed) is new. */
  async function expectPipelineError(name: string, message: string, flags: string[] = []): Promise<void> {
    const before = await readState(db);
    expect(before.target).toHaveLength(2);
    const result = await runCli(['run', name, '--date', '2026-01-05', ...flags], env);
    expect(result.code, result.stderr).toBe(2);
    const summary = summaryOf(result);
    expect(summary.err.message).toBe(message);
    const after = await readState(db);
    expect(after.jobRuns.find((r: any) => r.job_name === name)).toMatchObject({ status: 'failed', error: message });
    expect({ ...after, jobRuns: after.jobRuns.filter((r: any) => r.job_name !== name) }).toEqual(before);
  }

  it('a values key that is not a declared column fails at the first record, naming the key and the declared columns', async () => {
    await expectPipelineError(
      'typo-values',
      'pipeline "typo-values": toRecords gave record "A1" (line 2) a values key "cty" that is not a declared column; declared columns: name, city, qty, amount',
    );
  });

  it('a decimal string for an integer column is a pipeline error, not a quarantined row', async () => {
    await expectPipelineError(
      'string-for-integer',
      'pipeline "string-for-integer": toRecords gave record "A1" (line 2) column qty: expected integer (a number that is a safe integer), received string "3"',
    );
  });

  it('a float for a decimal column after the first record: staging loaded so far is emptied again', async () => {
    // --batch-rows 1: the first record is in staging when the second one is found wrong.
    await expectPipelineError(
      'float-for-decimal',
      'pipeline "float-for-decimal": toRecords gave record "B2" (line 3) column amount: expected decimal (a decimal string or a Big, never a float), received number 7.25',
      ['--batch-rows', '1'],
    );
  });
});
