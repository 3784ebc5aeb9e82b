import { afterEach, beforeEach, expect, it } from 'vitest';
import type { Database } from '../../src/db/database.ts';
import type { SandboxApi } from '../../src/sandbox/start-sandbox-api.ts';
import { describeEachDialect } from '../helpers/dialects.ts';
import { setUpExampleProject, type ExampleProject } from '../helpers/example-project.ts';
import { editedFixture } from '../helpers/fixtures.ts';
import { runCli, summaryOf } from '../helpers/run-cli.ts';

const TABLES = ['job_runs', 'job_run_attempts', 'post_ledger', 'quarantine', 'online_retail_invoices', 'stg_online_retail_invoices', 'app_locks'];

describeEachDialect('idem run --dry-run', (dialect) => {
  let project: ExampleProject;
  let db: Database;
  let sandbox: SandboxApi;
  let env: Record<string, string>;

  beforeEach(async (context) => {
    project = await setUpExampleProject(dialect, context.task.name);
    ({ db, sandbox, env } = project);
  });

  afterEach(() => project.close());

  const snapshot = async () => {
    const tables: Record<string, unknown[]> = {};
    for (const table of TABLES) tables[table] = await db.knex(table).select('*').orderBy(table === 'app_locks' ? 'name' : table === 'stg_online_retail_invoices' ? 'seq' : 'id');
    return { tables, sandbox: { records: sandbox.state.records().length, requests: sandbox.state.stats().requests.length } };
  };

  it('plans a first run without writing anything or sending anything', async () => {
    const before = await snapshot();
    const result = await runCli(['run', 'online-retail-invoices', '--date', '2010-12-01', '--dry-run'], env);
    expect(result.code).toBe(0);
    const summary = summaryOf(result);
    expect(summary.outcome).toBe('planned');
    expect(summary.plan.target).toMatchObject({ table: 'online_retail_invoices', insert: { count: 143 }, update: { count: 0 }, leave: { count: 0 } });
    expect(summary.plan.target.insert.first).toEqual(['536365', '536366', '536367', '536368', '536369']);
    expect(summary.plan.destinations).toEqual([{ destination: 'sandbox-accounting', strategy: 'idempotency-key', requests: { count: 143, first: ['536365', '536366', '536367', '536368', '536369'] } }]);
    expect(result.stdout).toContain('plan (dry run, nothing written): online_retail_invoices');
    expect(await snapshot()).toEqual(before);
  });

  it('names exactly the changed invoice for a changed file, and leaves the database and the sandbox as they were', async () => {
    expect((await runCli(['run', 'online-retail-invoices', '--date', '2010-12-01'], env)).code).toBe(0);
    const before = await snapshot();
    const dir = editedFixture('2010-12-01', (line, n) => (n === 2 ? line.replace(',6,2010-12-01', ',7,2010-12-01') : line));
    const result = await runCli(['run', 'online-retail-invoices', '--date', '2010-12-01', '--dry-run'], { ...env, IDEM_SOURCE_DIR: dir });
    expect(result.code).toBe(0);
    const { plan } = summaryOf(result);
    expect(plan.target.insert).toEqual({ count: 0, first: [] });
    expect(plan.target.update).toEqual({ count: 1, first: ['536365'] });
    expect(plan.target.leave.count).toBe(142);
    expect(plan.destinations[0].requests).toEqual({ count: 1, first: ['536365'] });
    expect(await snapshot()).toEqual(before);
  });
});
