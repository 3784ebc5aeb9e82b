import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';
import { column } from '../../src/column/column-type.ts';
import { pipeline as invoices } from '../../pipelines/online-retail-invoices.ts';
import { pipeline as products } from '../../pipelines/online-retail-products.ts';
import { describeEachDialect } from '../helpers/dialects.ts';
import { openFaultWorld, type FaultWorld } from '../helpers/open-fault-world.ts';
import { resetRunTables } from '../helpers/reset-run-tables.ts';
import { startCli, summaryOf, type CliResult } from '../helpers/run-cli.ts';
import { sourcesEnv } from '../helpers/sandbox.ts';

const INVOICES = invoices.name;
const PRODUCTS = products.name;
// The winner sleeps after staging, holding the lock, so every other process asks while it is held.
const HOLD = { IDEM_FAILPOINTS: 'after-stage=sleep:3000' };

/** Starts every command at once and waits for all of them. */
const together = (commands: string[][], env: Record<string, string>): Promise<CliResult[]> => Promise.all(commands.map((args) => startCli(args, env).done));
const codes = (results: CliResult[]): (number | null)[] => results.map((r) => r.code).sort((a, b) => (a ?? -1) - (b ?? -1));

// Sequential on purpose: the losers' "within a second" is a timing assertion, and concurrent
// tests would compete for the CPU. One database per dialect, emptied before each test.
describeEachDialect('overlapping runs: one run per pipeline at a time, the others exit 75 at once', (dialect) => {
  let world: FaultWorld;
  let db: FaultWorld['db'];
  let sandbox: FaultWorld['sandbox'];
  let env: Record<string, string>;

  beforeAll(async () => {
    world = await openFaultWorld(dialect, 'overlap');
    ({ db, sandbox } = world);
    // No crash here, so no short SQLite lease: the default 30 s keeps a winner slowed by the CPU
    // load of five starting processes from losing its lease. The products pipeline reads the
    // sandbox's catalogue.
    const { IDEM_LOCK_LEASE_MS: _short, ...rest } = world.env();
    env = { ...rest, IDEM_SOURCES: sourcesEnv(sandbox) };
  });

  beforeEach(async () => {
    await resetRunTables(db, [invoices.tables.target, invoices.tables.staging, products.tables.target, products.tables.staging]);
    sandbox.reset();
  });

  afterAll(() => world?.close());

  it('5 processes for the same pipeline and date: one completes, 4 exit 75 within a second of their start', async () => {
    const runs = await together(Array.from({ length: 5 }, () => ['run', INVOICES, '--date', '2010-12-01']), { ...env, ...HOLD });
    expect(codes(runs)).toEqual([0, 75, 75, 75, 75]);
    for (const loser of runs.filter((r) => r.code === 75)) {
      expect(summaryOf(loser)).toMatchObject({ outcome: 'lock-held', exitCode: 75 });
      expect(summaryOf(loser).durationMs).toBeLessThan(1000);
      expect(summaryOf(loser).msg).toMatch(/^app lock "idem:online-retail-invoices" is held by .*run 2010-12-01/);
    }
    expect(await db.knex('job_runs').select('run_key', 'status', 'attempts')).toEqual([{ run_key: '2010-12-01', status: 'completed', attempts: 1 }]);
    expect(sandbox.state.records()).toHaveLength(143);
    expect(Object.values(sandbox.state.stats().byReference).every((n) => n === 1)).toBe(true);
  });

  it('5 dates of one pipeline at once: one proceeds, the other 4 exit 75 (the lock is per pipeline, not per date)', async () => {
    const dates = ['2010-12-01', '2010-12-02', '2010-12-03', '2010-12-05', '2010-12-06'];
    const runs = await together(dates.map((date) => ['run', INVOICES, '--date', date]), { ...env, ...HOLD });
    expect(codes(runs)).toEqual([0, 75, 75, 75, 75]);
    const winner = dates[runs.findIndex((r) => r.code === 0)];
    for (const loser of runs.filter((r) => r.code === 75)) expect(summaryOf(loser).durationMs).toBeLessThan(1000);
    // The losers wrote nothing: not even a job_runs row.
    expect(await db.knex('job_runs').select('run_key', 'status')).toEqual([{ run_key: winner, status: 'completed' }]);
  });

  it('2 different pipelines at once both proceed, overlapping in time', async () => {
    const runs = await together([['run', INVOICES, '--date', '2010-12-01'], ['run', PRODUCTS, '--date', '2010-12-01']], { ...env, ...HOLD });
    expect(runs.map((r) => [r.code, summaryOf(r).outcome])).toEqual([[0, 'completed'], [0, 'completed']]);
    const instant = (value: unknown): number => Date.parse(db.adapter.fromDriverValue(column.instant(), value) as string);
    const spans = (await db.knex('job_runs').select('job_name', 'started_at', 'finished_at').orderBy('job_name')) as Record<string, unknown>[];
    expect(spans.map((s) => s.job_name)).toEqual([INVOICES, PRODUCTS]);
    // Each held its own lock through its 3 s sleep, and the two runs were under way at the same time.
    expect(Math.max(...spans.map((s) => instant(s.started_at)))).toBeLessThan(Math.min(...spans.map((s) => instant(s.finished_at))));
  });
});
