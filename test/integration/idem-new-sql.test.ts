import { readFileSync } from 'node:fs';
import path from 'node:path';
import { DateTime } from 'luxon';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { seedShop, shopOrders } from '../../scripts/seed-shop.ts';
import { createTestDatabase, describeEachDialect, type TestDatabase } from '../helpers/dialects.ts';
import { PROJECT_DIR, runCli, summaryOf } from '../helpers/run-cli.ts';
import { createScratchProject, type ScratchProject } from '../helpers/scratch-project.ts';

// `idem new NAME --sql "SELECT …" --source shop`: the columns inferred from the query's first
// rows on each dialect, a pipeline whose query is a knex builder filtering the business date's
// range on the first instant column, and that pipeline migrated and run.

const SQL = "SELECT order_id, country, shipped_at, total FROM orders WHERE country <> 'United Kingdom'";
const DATE = '2010-12-02';
const EXPECTED = shopOrders()
  .filter((order) => order.country !== 'United Kingdom' && DateTime.fromISO(order.shipped_at).setZone('UTC').toISODate() === DATE)
  .map((order) => order.order_id)
  .sort();

describeEachDialect('idem new --sql: a pipeline from a query on a source database', (dialect) => {
  let project: ScratchProject;
  let shop: TestDatabase;
  let target: TestDatabase;
  let env: Record<string, string>;

  beforeAll(async () => {
    project = createScratchProject('new-sql');
    [shop, target] = await Promise.all([createTestDatabase(dialect, 'shop'), createTestDatabase(dialect, 'new_sql')]);
    await seedShop(shop.url, PROJECT_DIR);
    env = { IDEM_PROJECT_DIR: project.dir, DATABASE_URL: target.url, IDEM_SOURCES: JSON.stringify({ shop: { url: shop.url } }) };
  }, 120_000);

  afterAll(async () => {
    await Promise.all([shop?.drop(), target?.drop()]);
    project?.remove();
  });

  it('infers the columns from the result, writes a bound range filter on its instant column, and the pipeline runs', { timeout: 120_000 }, async () => {
    const made = await runCli(['new', 'big-orders', '--sql', SQL, '--source', 'shop'], env);
    expect(made.code, made.stderr).toBe(0);
    expect(made.stdout).toContain('key: order_id (proposed');
    expect(made.stdout).toMatch(/^ {2}country: column\.text\(\)$/m);
    expect(made.stdout).toMatch(/^ {2}shipped_at: column\.instant\(\)$/m);
    expect(made.stdout).toMatch(/^ {2}total: column\.decimal\(\d+, 3\)$/m);
    const module = readFileSync(path.join(project.dir, 'pipelines', 'big-orders.ts'), 'utf8');
    expect(module).toContain(`db.select('*').from(db.raw('(${SQL.replaceAll("'", "\\'")}) as source')).where('shipped_at', '>=', start).andWhere('shipped_at', '<', end).orderBy('order_id')`);

    expect((await runCli(['migrate'], env)).code).toBe(0);
    const run = await runCli(['run', 'big-orders', '--date', DATE], env);
    expect(run.code, run.stderr).toBe(0);
    expect(summaryOf(run).counts.extract).toMatchObject({ rows: EXPECTED.length, quarantined: 0 });
    expect(EXPECTED.length).toBeGreaterThan(3);
  });

  it('--sql without --source, or a source with no database URL, is a usage error', async () => {
    expect((await runCli(['new', 'x', '--sql', SQL], env)).stderr).toContain('--sql and --source go together');
    const unknown = await runCli(['new', 'x', '--sql', SQL, '--source', 'crm'], env);
    expect([unknown.code, unknown.stderr.trim()]).toEqual([2, `idem: --source crm names no database: set IDEM_SOURCES='{"crm":{"url":"postgres://…"}}' (or sqlite:, mysql://, mariadb://, mssql://)`]);
  });
});
