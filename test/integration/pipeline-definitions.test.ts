import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/db/database.ts';
import { createTestDatabase, describeOneDialect, type TestDatabase } from '../helpers/dialects.ts';
import { PROJECT_DIR, runCli, summaryOf } from '../helpers/run-cli.ts';
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

describeOneDialect("a pipeline's own mistakes in toRecords: exit 2 naming the column, nothing written", (dialect) => {
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

  /** Runs `name`, refused as it loads: exit 2, the message on stderr, nothing written, job_runs included. */
  async function expectRefusedAtLoad(name: string, message: string): Promise<void> {
    const before = await readState(db);
    const result = await runCli(['run', name, '--date', '2026-01-05'], env);
    expect([result.code, result.stderr]).toEqual([2, `idem: ${message}\n`]);
    expect(await readState(db)).toEqual(before);
  }

  it('refuses an enum setting with a typo as the module loads, naming the field, the value and the allowed values', async () => {
    await expectRefusedAtLoad(
      'duplicate-keys-typo',
      'pipelines/duplicate-keys-typo.ts: pipeline duplicateKeys must be one of "error", "last-wins", "collapse-identical" (got "last_wins")',
    );
  });

  it('refuses a source option with a typo and a source option that does not exist, each named', async () => {
    await expectRefusedAtLoad(
      'invalid-rows-typo',
      'pipelines/invalid-rows-typo.ts: pipeline source.invalidRows must be one of "quarantine", "fail" (got "quarntine"); ' +
        'pipeline source has no option "quoteChar"; its options are kind, directory, fileForDate, header, headerMatch, nullValues, row, invalidRows, snapshot, snapshotScope, maxDeleteShare, tombstone, missing, encoding, emptyFile, lastLineBreak, maxRecordBytes, decimalSeparator, groupSeparator, delimiter',
    );
  });

  it('refuses a plain object exported instead of a definePipeline result, saying what to export (no TypeError, exit 2)', async () => {
    await expectRefusedAtLoad(
      'plain-object',
      "pipelines/plain-object.ts exports `pipeline` as a plain object, not the result of definePipeline (which checks it): write export const pipeline = definePipeline({ name: 'plain-object', … }) (definePipeline imported from 'idem')",
    );
  });

  it('refuses a CSV header that differs from the row schema before any run work, naming the differing names', async () => {
    await expectRefusedAtLoad(
      'header-typo',
      'pipelines/header-typo.ts: pipeline source.header and source.row differ: the row schema reads "city", which the header lacks; header names the row schema does not read: "cty" (header ref,name,cty,qty,amount)',
    );
  });

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
      'pipeline "float-for-decimal": toRecords gave record "B2" (line 3) column amount: expected decimal (a decimal string, a Big, or a number the column holds exactly: at most 15 significant digits and scale decimals), received number 2.4166666666666665',
      ['--batch-rows', '1'],
    );
  });
});

describe('idem check: every load-time check, one line per problem, nothing run', () => {
  // --no-database: none of these checks opens the database (a SQLite file here would be created).
  const env = { IDEM_PROJECT_DIR: PROJECT, DATABASE_URL: 'sqlite:/nonexistent-dir/never-opened.sqlite3' };
  const projectDir = path.join(PROJECT_DIR, PROJECT);

  it('lists each definition mistake, a missing source directory and missing URLs, and exits 2', async () => {
    const result = await runCli(['check', '--no-database'], env);
    expect(result.code, result.stderr).toBe(2);
    expect(result.stdout.split('\n')).toEqual([
      'pipelines/duplicate-keys-typo.ts: pipeline duplicateKeys must be one of "error", "last-wins", "collapse-identical" (got "last_wins")',
      'pipelines/header-typo.ts: pipeline source.header and source.row differ: the row schema reads "city", which the header lacks; header names the row schema does not read: "cty" (header ref,name,cty,qty,amount)',
      'pipelines/invalid-rows-typo.ts: pipeline source.invalidRows must be one of "quarantine", "fail" (got "quarntine")',
      'pipelines/invalid-rows-typo.ts: pipeline source has no option "quoteChar"; its options are kind, directory, fileForDate, header, headerMatch, nullValues, row, invalidRows, snapshot, snapshotScope, maxDeleteShare, tombstone, missing, encoding, emptyFile, lastLineBreak, maxRecordBytes, decimalSeparator, groupSeparator, delimiter',
      `pipelines/missing-directory.ts: the source directory ${path.join(projectDir, 'no-such-dir')} does not exist (source.directory "no-such-dir")`,
      "pipelines/plain-object.ts: exports `pipeline` as a plain object, not the result of definePipeline (which checks it): write export const pipeline = definePipeline({ name: 'plain-object', … }) (definePipeline imported from 'idem')",
      'pipelines/unconfigured-urls.ts: the HTTP source has no base URL: set IDEM_SOURCES=\'{"unconfigured-urls":{"url":"https://…"}}\'',
      'pipelines/unconfigured-urls.ts: destination "people-api" has no URL: set IDEM_DESTINATIONS=\'{"people-api":{"url":"https://…"}}\'',
      '8 problems in 6 of 10 pipelines',
      '',
    ]);
  });

  it('exits 0 for pipelines without a problem, with the URLs configured', async () => {
    const configured = {
      ...env,
      IDEM_SOURCES: JSON.stringify({ 'unconfigured-urls': { url: 'http://127.0.0.1:9' } }),
      IDEM_DESTINATIONS: JSON.stringify({ 'people-api': { url: 'http://127.0.0.1:9' } }),
    };
    const result = await runCli(['check', '--no-database', 'good-people', 'unconfigured-urls', 'typo-values'], configured);
    expect([result.code, result.stdout, result.stderr]).toEqual([0, '3 pipelines checked: no problems\n', '']);
  });

  it('names an unknown pipeline as a usage error', async () => {
    const result = await runCli(['check', 'good-people', 'no-such-pipeline'], env);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^idem: unknown pipeline "no-such-pipeline"; known pipelines: duplicate-keys-typo, /);
  });
});
