import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, expect, it } from 'vitest';
import type { Database } from '../../src/db/database.ts';
import { createMigratedTestDatabase } from '../helpers/migrated-test-database.ts';
import { createTestDatabase, describeOneDialect, type TestDatabase } from '../helpers/dialects.ts';
import { destinationsEnv, startSandbox } from '../helpers/sandbox.ts';
import { PROJECT_DIR, runCliChild, startCli, type CliResult } from '../helpers/run-cli.ts';
import { openTestDatabase } from '../helpers/test-db.ts';
import { waitForLogLine } from '../helpers/wait-for-log-line.ts';
import type { SandboxApi } from '../../src/sandbox/start-sandbox-api.ts';

// IDEM_READ_THREADS through the real CLI, a child process each (the exit code is the subject):
// a run whose CSV file is read on a thread of its own ends as the same run read on its own
// thread does, with the same target rows, quarantine, job_runs and exit code; a run stopped in
// the middle of its read ends; a bad value is refused. The read itself is compared call for
// call in read-rows-in-worker.test.ts.

const CASES_DIR = path.join(PROJECT_DIR, 'test/fixtures/csv-sources');
const ORDERS_PROJECT = path.join(PROJECT_DIR, 'test/fixtures/orders-project');
/** Columns whose values differ between any two runs: ids, clocks, durations, the order concurrent posts were answered in. */
const VOLATILE = /^(id|run_id|created_at|updated_at|started_at|finished_at|heartbeat_at|quarantined_at|posted_at|remote_reference|claim_token|claimed_by|triggered_by|ms|durationMs)$/

/** `value` without its volatile fields, at any depth; JSON text (job_runs.counts) parsed. */
function stable(value: unknown): unknown {
  if (typeof value === 'string' && value.startsWith('{')) {
    try {
      return stable(JSON.parse(value));
    } catch {
      return value;
    }
  }
  if (Array.isArray(value)) return value.map(stable);
  if (value instanceof Date || value === null || typeof value !== 'object') return value;
  return Object.fromEntries(Object.entries(value).filter(([key]) => !VOLATILE.test(key)).map(([key, field]) => [key, stable(field)]));
}

/** What a run left behind that must not depend on the threads that read: its ending, and the tables it wrote. */
async function ending(result: CliResult, db: Database, tables: readonly string[]) {
  const state: Record<string, unknown> = {};
  for (const table of tables) state[table] = stable(await db.knex(table).select('*').orderBy(table === 'job_runs' || table === 'quarantine' ? 'id' : 'source_reference'));
  // The observable that differs: the thread a run says its source is read on (none: its own).
  const readThreads = result.logs.flatMap((line) => (typeof line.readThread === 'number' ? [line.readThread > 0] : []));
  return { code: result.code, outcome: result.summary?.outcome, error: (result.summary?.err as { message?: string } | undefined)?.message, counts: stable(result.summary?.counts), state, readThreads };
}

describeOneDialect('IDEM_READ_THREADS: a CSV file read on a thread of its own, through the CLI', (dialect) => {
  const databases: { testDb: TestDatabase; db: Database }[] = [];
  const sandboxes: SandboxApi[] = [];

  afterAll(async () => {
    for (const { testDb, db } of databases) {
      await db.close();
      await testDb.drop();
    }
    for (const sandbox of sandboxes) await sandbox.close();
  });

  /** A fresh database with the example project's tables, and a destination of its own. */
  async function exampleDatabase(label: string) {
    const testDb = await createMigratedTestDatabase(dialect, label);
    const db = await openTestDatabase(testDb.url);
    databases.push({ testDb, db });
    const sandbox = await startSandbox();
    sandboxes.push(sandbox);
    return { db, env: { DATABASE_URL: testDb.url, IDEM_DESTINATIONS: destinationsEnv(sandbox) } };
  }

  /** Runs online-retail-invoices for 2010-12-01 from `sourceDir` with 1, then 2 reading threads, each on a database of its own. */
  async function bothWays(sourceDir: string) {
    const endings = [];
    for (const threads of ['1', '2']) {
      const { db, env } = await exampleDatabase(`threads ${threads} ${path.basename(sourceDir)}`);
      const result = await runCliChild(['run', 'online-retail-invoices', '--date', '2010-12-01'], { ...env, IDEM_SOURCE_DIR: sourceDir, IDEM_READ_THREADS: threads });
      endings.push(await ending(result, db, ['online_retail_invoices', 'quarantine', 'job_runs', 'post_ledger']));
    }
    const [one, two] = endings;
    // With 2, every read of the run (a reread too) is on another thread; with 1, none is.
    expect(one!.readThreads).toEqual([]);
    expect(two!.readThreads.length).toBeGreaterThan(0);
    expect(two!.readThreads.every(Boolean)).toBe(true);
    return [{ ...one!, readThreads: undefined }, { ...two!, readThreads: undefined }, { readsOnThreads: two!.readThreads.length }] as const;
  }

  it('a whole day: the same invoices, ledger, counts and job_runs, exit 0', async () => {
    const [one, two] = await bothWays(path.join(PROJECT_DIR, 'fixtures/online-retail'));
    expect(two).toEqual(one);
    expect(two!.code).toBe(0);
    expect(two!.counts).toMatchObject({ extract: { rows: 3108, quarantined: 0 }, stage: { staged: 143 } });
    expect((two!.state.online_retail_invoices as unknown[]).length).toBe(143);
    expect(two!.state.job_runs).toEqual([expect.objectContaining({ status: 'completed', attempts: 1 })]);
  });

  it('a day whose first invoice comes back mid-file: the first pass stops mid-read, the sorted re-read gives the same invoices', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'idem-read-threads-'));
    const [header, first, ...rest] = readFileSync(path.join(PROJECT_DIR, 'fixtures/online-retail/2010-12-01.csv'), 'utf8').split('\n');
    rest.splice(1000, 0, first!);
    writeFileSync(path.join(dir, '2010-12-01.csv'), [header, ...rest].join('\n'));
    const [one, two, { readsOnThreads }] = await bothWays(dir);
    expect(two).toEqual(one);
    expect(two.code).toBe(0);
    expect(two.counts).toMatchObject({ extract: { rows: 3108, quarantined: 0 }, stage: { staged: 143 } });
    // Both passes were read on a thread of their own.
    expect(readsOnThreads).toBe(2);
  });

  it('impossible dates: the same three quarantined lines, then the same failure, exit 1', async () => {
    const [one, two] = await bothWays(path.join(CASES_DIR, 'impossible-dates'));
    expect(two).toEqual(one);
    expect(two!.code).toBe(1);
    expect((two!.state.quarantine as { line: number }[]).map((row) => row.line)).toEqual([4, 9, 12]);
    expect(two!.state.online_retail_invoices).toEqual([]);
  });

  it.each(['nul', 'cut', 'windows-1252'])('a refused file (%s): the same message, line and field, nothing written, exit 1', async (name) => {
    const [one, two] = await bothWays(path.join(CASES_DIR, name));
    expect(two).toEqual(one);
    expect(two!.code).toBe(1);
    expect(two!.error).toMatch(/2010-12-01\.csv:\d+: /);
    expect(two!.state.online_retail_invoices).toEqual([]);
  });

  it('rows that quarantine and the rest load: the same target, quarantine (order, line, reason, raw) and job_runs, exit 0, twice', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'idem-read-threads-'));
    let csv = 'ref,qty\n';
    for (let i = 0; i < 1500; i++) csv += `R${i},${i % 37 === 3 ? `x${i}` : `${i}.5`}\n`;
    writeFileSync(path.join(dir, '2026-01-05.csv'), csv);
    const endings = [];
    for (const threads of ['1', '2']) {
      const testDb = await createTestDatabase(dialect, `orders threads ${threads}`);
      const db = await openTestDatabase(testDb.url);
      databases.push({ testDb, db });
      const env = { DATABASE_URL: testDb.url, IDEM_PROJECT_DIR: ORDERS_PROJECT, IDEM_SOURCE_DIR: dir, IDEM_READ_THREADS: threads };
      expect((await runCliChild(['migrate'], env)).code).toBe(0);
      const first = await runCliChild(['run', 'test-orders', '--date', '2026-01-05'], env);
      const again = await runCliChild(['run', 'test-orders', '--date', '2026-01-05', '--force'], env);
      endings.push([await ending(first, db, []), await ending(again, db, ['test_orders', 'quarantine', 'job_runs'])].map(({ readThreads, ...rest }) => {
        expect(readThreads.length > 0).toBe(threads === '2');
        return rest;
      }));
    }
    expect(endings[1]).toEqual(endings[0]);
    const [first, again] = endings[1]!;
    expect(first!.code).toBe(0);
    expect(first!.counts).toMatchObject({ extract: { rows: 1500 - 41, quarantined: 41 } });
    expect(again!.code).toBe(0);
    expect((again!.state.test_orders as unknown[]).length).toBe(1500 - 41);
    const quarantine = again!.state.quarantine as { line: number; reason: string; raw: string }[];
    expect(quarantine.slice(0, 2)).toEqual([
      expect.objectContaining({ line: 5, reason: 'qty: expected a decimal (got "x3")', raw: 'R3,x3' }),
      expect.objectContaining({ line: 42, reason: 'qty: expected a decimal (got "x40")', raw: 'R40,x40' }),
    ]);
  });

  it('a run stopped (SIGTERM) in the middle of its read stops politely and its process ends', async () => {
    const { env } = await exampleDatabase('threads stop');
    const release = path.join(mkdtempSync(path.join(tmpdir(), 'idem-read-threads-')), 'release');
    // Staged 10 invoices at a time: the first boundary comes while the thread is still reading the day.
    const run = startCli(['run', 'online-retail-invoices', '--date', '2010-12-01', '--batch-rows', '10'], { ...env, IDEM_READ_THREADS: '2', IDEM_FAILPOINTS: `mid-stage=wait:${release}` });
    await waitForLogLine(run, (line) => line.failpoint === 'mid-stage');
    const heard = waitForLogLine(run, (line) => line.stage === 'stop');
    run.child.kill('SIGTERM');
    await heard;
    writeFileSync(release, '');
    const started = performance.now();
    const stopped = await run.done;
    expect(stopped.code, stopped.stderr).toBe(75);
    expect(stopped.summary).toMatchObject({ outcome: 'stopped', exitCode: 75 });
    // Its own stop grace is 10 s: a reading thread that kept the process alive would end it past that, at once.
    expect(performance.now() - started).toBeLessThan(8_000);
    expect(stopped.summary!.atOnce).toBeUndefined();
  });

  it('refuses a value other than 1 or 2, naming the setting and the value: exit 2', async () => {
    for (const value of ['3', '0', 'two']) {
      const result = await runCliChild(['status'], { IDEM_READ_THREADS: value, DATABASE_URL: `sqlite:${path.join(mkdtempSync(path.join(tmpdir(), 'idem-read-threads-')), 'db.sqlite3')}` });
      expect(result.code).toBe(2);
      expect(result.stderr).toContain(`IDEM_READ_THREADS must be 1 (the run's own thread reads its source) or 2 (a thread of its own reads and validates a CSV file) (got "${value}")`);
    }
  });
});
