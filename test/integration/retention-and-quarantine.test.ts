import { pino } from 'pino';
import { z } from 'zod';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load-config.ts';
import type { Database } from '../../src/db/database.ts';
import { createMigrationContext } from '../../src/migration/create-migration-context.ts';
import { column } from '../../src/column/column-type.ts';
import { definePipeline } from '../../src/pipeline/define-pipeline.ts';
import { replayQuarantine } from '../../src/runner/replay-quarantine.ts';
import { runPipeline } from '../../src/runner/run-pipeline.ts';
import { dateRunKey } from '../../src/runs/run-key.ts';
import { csvSource } from '../../src/source/csv/csv-source.ts';
import type { SandboxApi } from '../../src/sandbox/start-sandbox-api.ts';
import { createTestDatabase, describeEachDialect, type TestDatabase } from '../helpers/dialects.ts';
import { setUpExampleProject, type ExampleProject } from '../helpers/example-project.ts';
import { editedFixture, writeTempSource } from '../helpers/fixtures.ts';
import path from 'node:path';
import { PROJECT_DIR, runCli, summaryOf } from '../helpers/run-cli.ts';

import { openTestDatabase } from '../helpers/test-db.ts';

const count = async (db: Database, table: string) => Number(((await db.knex(table).count({ n: '*' })) as { n: number | string }[])[0]!.n);

describeEachDialect('idem prune and idem quarantine', (dialect) => {
  let project: ExampleProject;
  let testDb: TestDatabase;
  let db: Database;
  let sandbox: SandboxApi;
  let env: Record<string, string>;

  beforeEach(async (context) => {
    project = await setUpExampleProject(dialect, context.task.name);
    ({ testDb, db, sandbox, env } = project);
  });

  afterEach(() => project.close());

  it('prunes old completed runs, quarantine, replaced ledger versions and staging leftovers, and nothing a rerun needs', async () => {
    const run = (date: string, extra: Record<string, string> = {}, ...flags: string[]) => runCli(['run', 'online-retail-invoices', '--date', date, ...flags], { ...env, ...extra });
    expect((await run('2010-12-01')).code).toBe(0);
    const changed = editedFixture('2010-12-01', (line, n) => (n === 2 ? line.replace(',6,2010-12-01', ',7,2010-12-01') : line));
    expect((await run('2010-12-01', { IDEM_SOURCE_DIR: changed }, '--force')).code).toBe(0);
    const broken = editedFixture('2010-12-02', (line, n) => (n === 5 || n === 9 ? line.replace(/,\d+,2010-12-02/, ',x,2010-12-02') : line));
    expect((await run('2010-12-02', { IDEM_SOURCE_DIR: broken })).code).toBe(1);
    // The newest completed date stays whatever its age: --catch-up starts after it.
    expect((await run('2010-12-05')).code).toBe(0);
    expect((await run('2010-12-03', { IDEM_FAILPOINTS: 'after-stage=fail' })).code).toBe(1);
    const ledgerRows = await count(db, 'post_ledger');
    expect(ledgerRows).toBeGreaterThan(144);
    const stagedLeftovers = await count(db, 'stg_online_retail_invoices');
    expect(stagedLeftovers).toBeGreaterThan(0);

    const later = { IDEM_NOW: new Date(Date.now() + 2 * 86_400_000).toISOString() };
    const expected = { jobRuns: 1, jobRunAttempts: 2, quarantine: 2, ledger: 1, staging: { 'online-retail-invoices': stagedLeftovers, 'online-retail-products': 0, 'shop-catalogue': 0, 'shop-orders': 0 } };
    const dry = await runCli(['prune', '--older-than', '1d', '--dry-run'], { ...env, ...later });
    expect(dry.code).toBe(0);
    expect(JSON.parse(dry.stdout.trim().split('\n').at(-1)!)).toEqual({ dryRun: true, ...expected });
    expect([await count(db, 'job_runs'), await count(db, 'job_run_attempts'), await count(db, 'quarantine'), await count(db, 'post_ledger')]).toEqual([4, 5, 2, ledgerRows]);

    const real = await runCli(['prune', '--older-than', '1d'], { ...env, ...later });
    expect(JSON.parse(real.stdout.trim().split('\n').at(-1)!)).toEqual({ dryRun: false, ...expected });
    expect((await db.knex('job_runs').select('run_key', 'status').orderBy('run_key')).map((r: any) => `${r.run_key} ${r.status}`)).toEqual([
      '2010-12-02 failed', '2010-12-03 failed', '2010-12-05 completed',
    ]);
    expect([await count(db, 'quarantine'), await count(db, 'post_ledger'), await count(db, 'stg_online_retail_invoices')]).toEqual([0, ledgerRows - 1, 0]);
    // The pruned run's two attempts went with it; the other runs keep theirs.
    expect((await db.knex('job_run_attempts').select('run_key').orderBy('run_key')).map((r: any) => r.run_key)).toEqual(['2010-12-02', '2010-12-03', '2010-12-05']);
    // Nothing a rerun needs was pruned: the newest posted version of every invoice is still there.
    const posts = sandbox.state.postRequests;
    expect((await run('2010-12-01', { IDEM_SOURCE_DIR: changed })).code).toBe(0);
    expect(sandbox.state.postRequests).toBe(posts);

    // Nothing is old enough a day from now (not counting the idempotency window).
    expect(JSON.parse((await runCli(['prune', '--older-than', '30d'], env)).stdout.trim().split('\n').at(-1)!)).toMatchObject({ jobRuns: 0, jobRunAttempts: 0, quarantine: 0, ledger: 0 });
    expect((await runCli(['prune', '--older-than', '90x'], env)).stderr).toContain('--older-than must be a whole number of days or hours, like 90d or 36h (got "90x")');
  });

  it('lists quarantined rows, and refuses to replay rows of a pipeline that fails on bad rows', async () => {
    const broken = editedFixture('2010-12-02', (line, n) => (n === 7 ? line.replace(/,\d+,2010-12-02/, ',seven,2010-12-02') : line));
    expect((await runCli(['run', 'online-retail-invoices', '--date', '2010-12-02'], { ...env, IDEM_SOURCE_DIR: broken })).code).toBe(1);
    const table = await runCli(['quarantine', 'online-retail-invoices', '--run-key', '2010-12-02'], env);
    expect(table.code).toBe(0);
    expect(table.stdout).toMatch(/2010-12-02\s+7\s+Quantity: expected an integer \(got "seven"\)/);
    const json = JSON.parse((await runCli(['quarantine', 'online-retail-invoices', '--json'], env)).stdout);
    expect(json).toHaveLength(1);
    expect(json[0]).toMatchObject({ runKey: '2010-12-02', line: 7, reason: 'Quantity: expected an integer (got "seven")' });
    const replay = await runCli(['quarantine', 'online-retail-invoices', '--run-key', '2010-12-02', '--replay'], env);
    expect(replay.code).toBe(2);
    expect(replay.stderr).toContain("online-retail-invoices does not load past bad rows (invalidRows: 'fail')");
  });

  it('replays a run key\'s quarantined rows by command after their text is corrected', async () => {
    // Its own database: the orders project has its own migrations.
    const ordersDb = await createTestDatabase(dialect, 'orders project');
    const orders = await openTestDatabase(ordersDb.url);
    try {
      const project = { DATABASE_URL: ordersDb.url, IDEM_PROJECT_DIR: path.join(PROJECT_DIR, 'test/fixtures/orders-project') };
      expect((await runCli(['migrate'], project)).code).toBe(0);
      const first = await runCli(['run', 'test-orders', '--date', '2026-01-05'], project);
      expect(first.code).toBe(0);
      expect(summaryOf(first).counts.extract).toMatchObject({ rows: 2, quarantined: 2 });
      // The operator corrects the text of one of the two rows; the other stays wrong.
      await orders.knex('quarantine').where({ line: 3 }).update({ raw: 'B,2' });
      const replay = await runCli(['quarantine', 'test-orders', '--run-key', '2026-01-05', '--replay'], project);
      expect(replay.code).toBe(0);
      expect(summaryOf(replay).counts).toMatchObject({ extract: { rows: 1, quarantined: 1 }, upsert: { inserted: 1, updated: 0, unchanged: 0 } });
      expect((await orders.knex('test_orders').orderBy('source_reference')).map((r: any) => r.source_reference)).toEqual(['A', 'B', 'C']);
      const left = JSON.parse((await runCli(['quarantine', 'test-orders', '--json'], project)).stdout);
      expect(left.map((e: any) => [e.runKey, e.raw, e.reason])).toEqual([['2026-01-05', 'D,x4', 'qty: expected a decimal (got "x4")']]);
    } finally {
      await orders.close();
      await ordersDb.drop();
    }
  });

  it('replays quarantined rows after the pipeline is fixed: those rows are staged, the others untouched', async () => {
    await createMigrationContext(db.knex, db.adapter).createPipelineTables({ staging: 'stg_test_orders', target: 'test_orders', columns: { qty: column.decimal(10, 2) } });
    const orders = (qty: z.ZodType<string>) =>
      definePipeline({
        name: 'test-orders',
        sourceSystem: 'test',
        timeZone: 'UTC',
        source: csvSource({ directory: '.', fileForDate: (d) => `${d}.csv`, header: ['ref', 'qty'], row: z.object({ ref: z.string(), qty }), invalidRows: 'quarantine' }),
        async *toRecords(rows) {
          for await (const row of rows) yield { sourceReference: row.value.ref, line: row.line, values: { qty: row.value.qty } };
        },
        tables: { staging: 'stg_test_orders', target: 'test_orders' },
        columns: { qty: column.decimal(10, 2) },
      });
    const dir = writeTempSource('2026-01-05.csv', 'ref,qty\nA,1\nB,1.5\nC,3\nD,2.25\n');
    const config = { ...loadConfig({}, dir), databaseUrl: testDb.url, sourceDir: dir };
    const ctx = { config, db, logger: pino({ level: 'silent' }) };
    const strict = await runPipeline(ctx, { pipeline: orders(z.string().regex(/^\d+$/, 'expected a whole number')), runKey: dateRunKey('2026-01-05'), triggeredBy: 'test' });
    expect(strict.counts.extract).toMatchObject({ rows: 2, quarantined: 2 });
    expect((await db.knex('test_orders').orderBy('source_reference')).map((r: any) => r.source_reference)).toEqual(['A', 'C']);

    const fixed = orders(z.string().regex(/^\d+(\.\d+)?$/, 'expected a decimal'));
    const replayed = await replayQuarantine(ctx, { pipeline: fixed, runKey: '2026-01-05', triggeredBy: 'test' });
    expect(replayed.outcome).toBe('completed');
    expect(replayed.counts.upsert).toMatchObject({ inserted: 2, updated: 0, unchanged: 0 });
    expect((await db.knex('test_orders').orderBy('source_reference')).map((r: any) => [r.source_reference, db.adapter.fromDriverValue(column.decimal(10, 2), r.qty)])).toEqual([
      ['A', '1.00'], ['B', '1.50'], ['C', '3.00'], ['D', '2.25'],
    ]);
    expect(await count(db, 'quarantine')).toBe(0);
    expect(await db.knex('job_runs').first()).toMatchObject({ run_key: '2026-01-05', status: 'completed', attempts: 2 });
  });
});
