import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Database } from '../../src/db/database.ts';
import { QUARANTINE_TEXT_MAX_CHARS } from '../../src/quarantine/quarantine-text.ts';
import type { SandboxApi } from '../../src/sandbox/start-sandbox-api.ts';
import { createTestDatabase, describeEachDialect, type TestDatabase } from '../helpers/dialects.ts';
import { setUpExampleProject, type ExampleProject } from '../helpers/example-project.ts';
import { readInvoices } from '../helpers/read-target.ts';
import { PROJECT_DIR, runCli, summaryOf } from '../helpers/run-cli.ts';
import { openTestDatabase } from '../helpers/test-db.ts';

// Each case is a real file under test/fixtures/csv-sources/<case>/, derived from the bundled
// 2010-12-01 day as its README says, run as `idem run online-retail-invoices --date 2010-12-01`.
const CASES_DIR = path.join(PROJECT_DIR, 'test/fixtures/csv-sources');
const caseDir = (name: string): string => path.join(CASES_DIR, name);
const caseFile = (name: string): string => path.join(caseDir(name), '2010-12-01.csv');
const HEADER = 'InvoiceNo,StockCode,Description,Quantity,InvoiceDate,UnitPrice,CustomerID,Country';

/** Everything a run could write: target, ledger, destination, staging, quarantine, job_runs. */
async function readState(db: Database, sandbox: SandboxApi) {
  return {
    invoices: await readInvoices(db),
    ledger: await db.knex('post_ledger').select('*').orderBy('id'),
    remoteRecords: sandbox.state.stats().records,
    staging: await db.knex('stg_online_retail_invoices').select('*').orderBy('seq'),
    quarantine: await db.knex('quarantine').select('*').orderBy('id'),
    jobRuns: await db.knex('job_runs').select('*').orderBy('id'),
  };
}

describeEachDialect('CSV files the example pipeline refuses: the message says where, nothing is written', (dialect) => {
  let project: ExampleProject;
  let db: Database;
  let sandbox: SandboxApi;
  let env: Record<string, string>;
  /** Attempts of run key 2010-12-01 so far: every refused case adds one. */
  let attempts = 0;

  beforeAll(async () => {
    project = await setUpExampleProject(dialect, 'csv source refusals');
    ({ db, sandbox, env } = project);
    // A completed day, so that there is a target, a ledger and remote records to leave alone.
    expect((await runCli(['run', 'online-retail-invoices', '--date', '2010-12-02'], env)).code).toBe(0);
  });

  afterAll(() => project.close());

  /**
   * Runs the case's file as 2010-12-01 and checks the refusal: exit 1, the summary's and
   * `job_runs`' message, and that nothing else moved (the run key's own `job_runs` row is
   * `failed`, never `completed`, so neither catch-up nor a backfill skips the date).
   */
  async function expectRefused(name: string, message: string): Promise<void> {
    const before = await readState(db, sandbox);
    const result = await runCli(['run', 'online-retail-invoices', '--date', '2010-12-01'], { ...env, IDEM_SOURCE_DIR: caseDir(name) });
    expect(result.code).toBe(1);
    const summary = summaryOf(result);
    expect(summary.outcome).toBe('failed');
    expect(summary.err.message).toBe(message);
    attempts += 1;
    const after = await readState(db, sandbox);
    const run = after.jobRuns.find((r: any) => r.run_key === '2010-12-01');
    expect(run).toMatchObject({ status: 'failed', attempts, error: message });
    expect({ ...after, jobRuns: after.jobRuns.filter((r: any) => r.run_key !== '2010-12-01') }).toEqual({
      ...before,
      jobRuns: before.jobRuns.filter((r: any) => r.run_key !== '2010-12-01'),
    });
  }

  it('refuses a 0-byte file: the date stays failed, not completed with no rows', async () => {
    await expectRefused(
      'empty',
      `${caseFile('empty')}: the file has no header line (0 bytes): a writer that failed before its first line leaves such a file; if an empty file means no rows for this source, declare emptyFile: 'no-rows'`,
    );
  });

  it('refuses a file cut inside its last field, naming its last line, the field and what is left of it', async () => {
    await expectRefused(
      'cut',
      `${caseFile('cut')}:26: Country: the file does not end with a line break, so its last line looks cut off in transfer (got "United K"); if this source never ends its last line with one, declare lastLineBreak: 'optional'`,
    );
  });

  it('refuses bytes that are not UTF-8 (a windows-1252 export), naming line, byte offset, field and value', async () => {
    const offset = readFileSync(caseFile('windows-1252')).indexOf(0xcb); // Ë in windows-1252
    await expectRefused(
      'windows-1252',
      `${caseFile('windows-1252')}:9: Description: bytes that are not UTF-8 (0xCB) at byte offset ${offset}: the file is not UTF-8 (got "NO\uFFFDL HAND WARMER UNION JACK"); if the source writes windows-1252 or latin1, declare encoding: 'windows-1252'`,
    );
  });

  it('refuses a NUL byte on every dialect alike, naming line, byte offset, field and value', async () => {
    const offset = readFileSync(caseFile('nul')).indexOf(0);
    await expectRefused(
      'nul',
      `${caseFile('nul')}:12: Description: a NUL byte (0x00) at byte offset ${offset}: a text source must not hold one (got "POPPY'S PLAY\\u0000HOUSE BEDROOM ")`,
    );
  });

  it('refuses a record over maxRecordBytes (a 1.2 MB description) with its line and field, on MariaDB too', async () => {
    await expectRefused(
      'oversized-record',
      `${caseFile('oversized-record')}:11: Description: a record longer than 1048576 bytes, the source's maxRecordBytes (got "536367,84879,${'X'.repeat(67)}"… (1048580 characters))`,
    );
  });

  it('checks the header first: a semicolon-delimited file is named as such, not blamed on its first quoted field', async () => {
    await expectRefused(
      'semicolon',
      `${caseFile('semicolon')}:1: header must be ${HEADER}: the file looks semicolon-delimited (";"); declare csvSource({ delimiter: ";" })`,
    );
  });

  it('quarantines every line whose time does not exist in Europe/London, earliest or not, naming field and value', async () => {
    const before = await readState(db, sandbox);
    const file = caseFile('impossible-dates');
    const result = await runCli(['run', 'online-retail-invoices', '--date', '2010-12-01'], { ...env, IDEM_SOURCE_DIR: caseDir('impossible-dates') });
    expect(result.code).toBe(1);
    const rule = 'InvoiceDate: expected a date and time that exist in Europe/London';
    const message = `3 row(s) quarantined and the pipeline's rule is invalidRows: 'fail' (first: ${file}:4: ${rule} (got "2010-12-01 25:26:00")); fix the source and rerun`;
    expect(summaryOf(result).err.message).toBe(message);
    attempts += 1;
    const after = await readState(db, sandbox);
    expect(after.quarantine.map((q: any) => [q.run_key, q.source, q.line, q.reason])).toEqual([
      ['2010-12-01', file, 4, `${rule} (got "2010-12-01 25:26:00")`],
      ['2010-12-01', file, 9, `${rule} (got "2011-03-27 01:30:00")`],
      ['2010-12-01', file, 12, `${rule} (got "2010-11-31 08:34:00")`],
    ]);
    expect(after.jobRuns.find((r: any) => r.run_key === '2010-12-01')).toMatchObject({ status: 'failed', attempts, error: message });
    // The documented quarantine outcome: the run failed before upsert; its staged records are
    // leftovers that the next attempt of the run key replaces.
    expect(after.staging.length).toBeGreaterThan(0);
    expect(after.staging.every((r: any) => r.run_key === '2010-12-01')).toBe(true);
    const { quarantine: _q, staging: _s, jobRuns: runsAfter, ...rest } = after;
    const { quarantine: _qb, staging: _sb, jobRuns: runsBefore, ...restBefore } = before;
    expect(rest).toEqual(restBefore);
    expect(runsAfter.filter((r: any) => r.run_key !== '2010-12-01')).toEqual(runsBefore.filter((r: any) => r.run_key !== '2010-12-01'));
  });

  it('loads a header-only file as a clean run with no rows, which completes the failed date', async () => {
    const before = await readState(db, sandbox);
    const result = await runCli(['run', 'online-retail-invoices', '--date', '2010-12-01'], { ...env, IDEM_SOURCE_DIR: caseDir('header-only') });
    expect(result.code).toBe(0);
    expect(summaryOf(result)).toMatchObject({ outcome: 'completed', counts: { extract: { rows: 0, quarantined: 0 }, upsert: { inserted: 0, updated: 0, unchanged: 0 } } });
    const after = await readState(db, sandbox);
    expect(after.jobRuns.find((r: any) => r.run_key === '2010-12-01')).toMatchObject({ status: 'completed', attempts: attempts + 1 });
    expect([after.invoices, after.ledger, after.remoteRecords, after.staging, after.quarantine]).toEqual([before.invoices, before.ledger, before.remoteRecords, [], []]);
  });
});

describeEachDialect('CSV source options: a windows-1252 export without a last line break, and an empty day', (dialect) => {
  const projectDir = path.join(PROJECT_DIR, 'test/fixtures/windows-1252-project');
  let testDb: TestDatabase;
  let db: Database;
  let env: Record<string, string>;

  beforeAll(async () => {
    testDb = await createTestDatabase(dialect, 'windows-1252 project');
    env = { DATABASE_URL: testDb.url, IDEM_PROJECT_DIR: projectDir };
    expect((await runCli(['migrate'], env)).code).toBe(0);
    db = await openTestDatabase(testDb.url);
  });

  afterAll(async () => {
    await db.close();
    await testDb.drop();
  });

  it('decodes windows-1252 as the WHATWG table does; quarantines a 70,000-character row cut, and replays none cut', async () => {
    const result = await runCli(['run', 'test-cp1252-products', '--date', '2026-01-05'], env);
    expect(result.code).toBe(0);
    expect(summaryOf(result).counts.extract).toMatchObject({ rows: 4, quarantined: 2 });
    const names = async () => (await db.knex('test_cp1252_products').orderBy('source_reference')).map((p: any) => [p.source_reference, p.name]);
    // The last line has no line break (lastLineBreak: 'optional'); 0x80 is €, 0x91/0x92 quotes, 0x96 a dash.
    expect(await names()).toEqual([
      ['A1', 'CAFÉ CRÈME'],
      ['A2', '€ GIFT VOUCHER'],
      ['A3', '‘SMART’ QUOTES – DASH'],
      ['A5', 'LAST LINE ŽŸ'],
    ]);
    const quarantined = await db.knex('quarantine').select('*').orderBy('line');
    expect(quarantined.map((q: any) => [q.run_key, q.line, q.reason])).toEqual([
      ['2026-01-05', 5, 'expected 3 fields, found 4'],
      ['2026-01-05', 6, 'expected 3 fields, found 4'],
    ]);
    // MySQL's and MariaDB's TEXT holds 65,535 bytes: whole, this row could not be stored.
    const whole = `A4,${'A'.repeat(70_000)},1.00,EXTRA`;
    expect(quarantined[0].raw).toBe(`${whole.slice(0, QUARANTINE_TEXT_MAX_CHARS)}… [cut by idem: ${whole.length} characters in all]`);
    expect(quarantined[1].raw).toBe('A6,CRÈME BRÛLÉE €,4,00');

    // A cut row replayed would load a shortened last field: replay refuses.
    const replay = ['quarantine', 'test-cp1252-products', '--run-key', '2026-01-05', '--replay'];
    const refused = await runCli(replay, env);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(`1 quarantined row(s) of run key 2026-01-05 were longer than ${QUARANTINE_TEXT_MAX_CHARS} characters and are kept cut`);
    expect((await names()).length).toBe(4);

    // Once the operator has corrected both texts, they replay, read back as the text they are.
    await db.knex('quarantine').where({ line: 5 }).update({ raw: 'A4,PLAIN NAME,1.00' });
    await db.knex('quarantine').where({ line: 6 }).update({ raw: 'A6,CRÈME BRÛLÉE €,4.00' });
    const replayed = await runCli(replay, env);
    expect(replayed.code).toBe(0);
    expect(summaryOf(replayed).counts.upsert).toMatchObject({ inserted: 2, updated: 0, unchanged: 0 });
    expect(await names()).toEqual([
      ['A1', 'CAFÉ CRÈME'],
      ['A2', '€ GIFT VOUCHER'],
      ['A3', '‘SMART’ QUOTES – DASH'],
      ['A4', 'PLAIN NAME'],
      ['A5', 'LAST LINE ŽŸ'],
      ['A6', 'CRÈME BRÛLÉE €'],
    ]);
  });

  it("completes a 0-byte file as a day with no rows when the source declares emptyFile: 'no-rows'", async () => {
    const result = await runCli(['run', 'test-cp1252-products', '--date', '2026-01-06'], env);
    expect(result.code).toBe(0);
    expect(summaryOf(result)).toMatchObject({ outcome: 'completed', counts: { extract: { rows: 0, quarantined: 0 } } });
    expect(await db.knex('job_runs').where({ run_key: '2026-01-06' }).first()).toMatchObject({ status: 'completed', attempts: 1 });
  });
});
