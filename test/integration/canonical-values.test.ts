import path from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import type { Database } from '../../src/db/database.ts';
import type { SandboxApi } from '../../src/sandbox/start-sandbox-api.ts';
import { describeEachDialect } from '../helpers/dialects.ts';
import { setUpExampleProject, type ExampleProject } from '../helpers/example-project.ts';
import { PROJECT_DIR, runCli, summaryOf } from '../helpers/run-cli.ts';

const DAY = '2010-12-01';
/** The real day re-exported with other formatting (see test/fixtures/reformatted/README.md). */
const REFORMATTED = path.join(PROJECT_DIR, 'test', 'fixtures', 'reformatted');

describeEachDialect('a change means a business change: a reformatted re-export of a real day', (dialect) => {
  let project: ExampleProject;
  let db: Database;
  let sandbox: SandboxApi;
  let env: Record<string, string>;

  beforeEach(async (context) => {
    project = await setUpExampleProject(dialect, context.task.name);
    ({ db, sandbox, env } = project);
  });

  afterEach(() => project.close());

  async function tables() {
    return {
      target: await db.knex('online_retail_invoices').select('*').orderBy('id'),
      ledger: await db.knex('post_ledger').select('*').orderBy('id'),
      quarantine: await db.knex('quarantine').select('*').orderBy('id'),
    };
  }

  it('2.5500 for 2.55, 6.0 for 6, 17850 for 17850.0 and padded fields: 0 updates, 0 posts', async () => {
    const first = await runCli(['run', 'online-retail-invoices', '--date', DAY], env);
    expect(first.code, first.stdout + first.stderr).toBe(0);
    expect(summaryOf(first).counts.upsert).toMatchObject({ inserted: 143, updated: 0 });
    expect(summaryOf(first).counts.post['sandbox-accounting']).toMatchObject({ posted: 143 });
    const before = await tables();
    const invoice = before.target.find((row) => row.source_reference === '536365')!;
    expect(invoice.customer_id).toBe('17850');
    expect(JSON.parse(invoice.lines)[0]).toEqual({ amount: '15.300', description: 'WHITE HANGING HEART T-LIGHT HOLDER', quantity: 6, stock_code: '85123A', unit_price: '2.55' });
    expect(sandbox.state.records()).toHaveLength(143);

    const again = await runCli(['run', 'online-retail-invoices', '--date', DAY, '--force'], { ...env, IDEM_SOURCE_DIR: REFORMATTED });
    expect(again.code, again.stdout + again.stderr).toBe(0);
    const summary = summaryOf(again);
    expect(summary.counts.extract.rows).toBe(3108);
    expect(summary.counts.upsert).toMatchObject({ inserted: 0, updated: 0, unchanged: 143 });
    expect(summary.counts.post['sandbox-accounting']).toMatchObject({ sent: 0, posted: 0 });
    expect(await tables()).toEqual(before);
    expect(sandbox.state.records()).toHaveLength(143);
  });
});
