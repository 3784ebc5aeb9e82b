import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DateTime } from 'luxon';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/db/open-database.ts';
import type { Database } from '../../src/db/database.ts';
import type { SandboxApi } from '../../src/sandbox/start-sandbox-api.ts';
import { seedShop, shopOrders, type ShopOrder } from '../../scripts/seed-shop.ts';
import { closedPort } from '../helpers/closed-port.ts';
import { createTestDatabase, describeEachDialect, type TestDatabase } from '../helpers/dialects.ts';
import { createMigratedTestDatabase } from '../helpers/migrated-test-database.ts';
import { PROJECT_DIR, runCli, startCli, summaryOf } from '../helpers/run-cli.ts';
import { destinationsEnv, startSandbox } from '../helpers/sandbox.ts';

// The SQL source kind through the shop-orders example (pipelines/shop-orders.ts): a `shop`
// database seeded by scripts/seed-shop.ts on each dialect, read by idem runs as child processes,
// posted to the sandbox. What the source should give is computed here from the fixtures with
// luxon, independently of idem's range.

const PIPELINE = 'shop-orders';
const ORDERS = shopOrders();

/** The orders whose shipped_at falls on `date` in Europe/London. */
function shippedOn(date: string): ShopOrder[] {
  return ORDERS.filter((order) => DateTime.fromISO(order.shipped_at).setZone('Europe/London').toISODate() === date).sort((a, b) => a.order_id.localeCompare(b.order_id));
}

/** A server URL with a password that trust auth ignores: it must never be printed or stored. */
const CANARY = 'canary-pw-7f3a';
function withCanary(url: string): string {
  const parsed = new URL(url);
  if (parsed.protocol !== 'postgres:' && parsed.protocol !== 'postgresql:') return url;
  parsed.password = CANARY;
  return parsed.href;
}

describeEachDialect('sqlSource: shop-orders reads the orders shipped on the business date', (dialect) => {
  let shop: TestDatabase;
  let target: TestDatabase;
  let sandbox: SandboxApi;
  let db: Database;
  let shopDb: Database;
  let env: Record<string, string>;

  beforeAll(async () => {
    [shop, target, sandbox] = await Promise.all([createTestDatabase(dialect, 'shop'), createMigratedTestDatabase(dialect, 'shop_orders'), startSandbox()]);
    await seedShop(shop.url, PROJECT_DIR, ORDERS);
    env = { DATABASE_URL: target.url, IDEM_SOURCES: JSON.stringify({ shop: { url: withCanary(shop.url) } }), IDEM_DESTINATIONS: destinationsEnv(sandbox) };
    db = await openDatabase({ databaseUrl: target.url, projectDir: PROJECT_DIR });
    shopDb = await openDatabase({ databaseUrl: shop.url, projectDir: PROJECT_DIR });
  }, 120_000);

  afterAll(async () => {
    await db?.close();
    await shopDb?.close();
    await sandbox?.close();
    await Promise.all([shop?.drop(), target?.drop()]);
  });

  const stored = async (date: string) =>
    (await db.knex('shop_orders').select('source_reference', 'total', 'shipped_at', 'line_count').where('first_run_key', date).orderBy('source_reference')).map((row) => ({
      order_id: row.source_reference as string,
      total: Number(row.total),
      line_count: Number(row.line_count),
    }));
  const expected = (date: string) => shippedOn(date).map((order) => ({ order_id: order.order_id, total: Number(order.total), line_count: order.line_count }));

  it('a run stores and posts exactly the orders shipped on the date, a rerun is a no-op, and the password is printed nowhere', { timeout: 120_000 }, async () => {
    const date = '2010-12-02';
    expect(shippedOn(date).length).toBeGreaterThan(50);
    const run = await runCli(['run', PIPELINE, '--date', date], env);
    expect(run.code, run.stderr).toBe(0);
    const summary = summaryOf(run);
    expect(summary.counts.extract).toMatchObject({ rows: shippedOn(date).length, quarantined: 0 });
    expect(summary.counts.extract.source).toContain(`[${date}T00:00:00.000Z, 2010-12-03T00:00:00.000Z)`);
    expect(await stored(date)).toEqual(expected(date));
    const posted = sandbox.state.records().filter((record) => String(record.reference).startsWith('order-'));
    expect(posted.map((record) => record.reference).sort()).toEqual(shippedOn(date).map((order) => `order-${order.order_id}`));
    // The derived daily totals: one row per country, recomputed here from the source's orders.
    const byCountry = new Map<string, { orders: number; total: number }>();
    for (const order of shippedOn(date)) {
      const sum = byCountry.get(order.country) ?? { orders: 0, total: 0 };
      byCountry.set(order.country, { orders: sum.orders + 1, total: sum.total + Number(order.total) });
    }
    const totals = await db.knex('shop_orders_daily_totals').select('business_date', 'country', 'orders', 'total');
    const day = (value: unknown) => (value instanceof Date ? value.toISOString().slice(0, 10) : String(value));
    expect(totals.map((row) => [day(row.business_date), row.country, Number(row.orders), Number(row.total).toFixed(3)]).sort(([, a], [, b]) => (a < b ? -1 : 1))).toEqual(
      [...byCountry].sort(([a], [b]) => (a < b ? -1 : 1)).map(([country, sum]) => [date, country, sum.orders, sum.total.toFixed(3)]),
    );

    const again = await runCli(['run', PIPELINE, '--date', date], env);
    expect([again.code, summaryOf(again).outcome]).toEqual([0, 'noop']);
    const jobRuns = JSON.stringify(await db.knex('job_runs').select());
    for (const text of [run.stdout, run.stderr, again.stderr, jobRuns]) expect(text).not.toContain(CANARY);
    if (shop.url.startsWith('postgres')) expect(run.stderr).toContain('postgres:***@');
  });

  it('a day the clocks change is 23 or 25 hours long, and every order falls on exactly one date', { timeout: 180_000 }, async () => {
    // 2011-03-27: London springs forward (23 hours); 2011-10-30: it falls back (25 hours).
    for (const [date, range] of [
      ['2011-03-27', '[2011-03-27T00:00:00.000Z, 2011-03-27T23:00:00.000Z)'],
      ['2011-03-28', '[2011-03-27T23:00:00.000Z, 2011-03-28T23:00:00.000Z)'],
      ['2011-10-30', '[2011-10-29T23:00:00.000Z, 2011-10-31T00:00:00.000Z)'],
      ['2011-10-31', '[2011-10-31T00:00:00.000Z, 2011-11-01T00:00:00.000Z)'],
    ] as const) {
      const run = await runCli(['run', PIPELINE, '--date', date], env);
      expect(run.code, run.stderr).toBe(0);
      expect(summaryOf(run).counts.extract.source).toContain(range);
      expect(await stored(date), date).toEqual(expected(date));
    }
    const dstOrders = ['2011-03-27', '2011-03-28', '2011-10-30', '2011-10-31'].flatMap(shippedOn);
    expect(dstOrders.length).toBeGreaterThan(20);
    expect(new Set(dstOrders.map((order) => order.order_id)).size).toBe(dstOrders.length);
  });

  /**
   * Whether a run's read is in progress: its read transaction open on the shop database (a
   * server's own view of its sessions), or on SQLite, where each staged batch commits, a batch
   * staged.
   */
  const readInProgress = async (): Promise<boolean> => {
    if (dialect === 'postgres') {
      const rows = await shopDb.knex('pg_stat_activity').count({ n: '*' }).whereRaw("datname = current_database() and state = 'idle in transaction' and pid <> pg_backend_pid()");
      return Number(rows[0]!.n) > 0;
    }
    if (dialect === 'mysql') {
      const rows = await shopDb.knex.raw('select count(*) as n from information_schema.innodb_trx t join information_schema.processlist p on p.id = t.trx_mysql_thread_id where p.db = database()');
      return Number(rows[0][0].n) > 0;
    }
    return Number((await db.knex('stg_shop_orders').count({ n: '*' }))[0]!.n) > 0;
  };

  it('rows committed into the source while the run reads are not in that run; a --force run reads them', { timeout: 120_000 }, async () => {
    const date = '2010-12-06';
    const release = path.join(mkdtempSync(path.join(tmpdir(), 'idem-sql-hold-')), 'release');
    const run = startCli(['run', PIPELINE, '--date', date, '--batch-rows', '10'], { ...env, IDEM_FAILPOINTS: `mid-stage=wait:${release}` });
    const late = { order_id: '999999', customer_id: '12345', country: 'Iceland', ordered_at: `${date}T09:00:00.000Z`, shipped_at: `${date}T12:00:00.000Z`, line_count: 1, total: '9.990' };
    try {
      // Held after its first staged batch, in the middle of the read: its read transaction is open.
      await expect.poll(readInProgress, { timeout: 60_000, interval: 100 }).toBe(true);
      await shopDb.knex('orders').insert({
        ...late,
        ordered_at: shopDb.adapter.toDriverValue({ type: 'instant', nullable: false }, late.ordered_at),
        shipped_at: shopDb.adapter.toDriverValue({ type: 'instant', nullable: false }, late.shipped_at),
        total: shopDb.adapter.toDriverValue({ type: 'decimal', nullable: false, precision: 14, scale: 3 }, late.total),
      });
    } finally {
      writeFileSync(release, '');
    }
    const done = await run.done;
    expect(done.code, done.stderr).toBe(0);
    expect(summaryOf(done).counts.extract.rows).toBe(shippedOn(date).length);
    expect(await stored(date)).toEqual(expected(date));

    const forced = await runCli(['run', PIPELINE, '--date', date, '--force'], env);
    expect(forced.code, forced.stderr).toBe(0);
    expect(summaryOf(forced).counts.upsert).toMatchObject({ inserted: 1, unchanged: shippedOn(date).length });
    expect((await stored(date)).map((row) => row.order_id)).toContain('999999');
    await shopDb.knex('orders').where('order_id', '999999').delete();
  });

  it('--dry-run plans without writing, and backfill runs each date in order', { timeout: 180_000 }, async () => {
    const planned = await runCli(['run', PIPELINE, '--date', '2010-12-07', '--dry-run'], env);
    expect(planned.code, planned.stderr).toBe(0);
    expect(summaryOf(planned).plan).toMatchObject({ target: { insert: { count: shippedOn('2010-12-07').length } } });
    expect(await stored('2010-12-07')).toEqual([]);

    const backfill = await runCli(['backfill', PIPELINE, '--from', '2010-12-07', '--to', '2010-12-08'], env);
    expect(backfill.code, backfill.stderr).toBe(0);
    for (const date of ['2010-12-07', '2010-12-08']) expect(await stored(date), date).toEqual(expected(date));
  });

  it.skipIf(dialect === 'sqlite')('a source database that stays unreachable through the retries exits 75, naming it without its password', { timeout: 60_000 }, async () => {
    const port = await closedPort();
    const down = new URL(shop.url);
    down.port = String(port);
    down.password = CANARY;
    const run = await runCli(['run', PIPELINE, '--date', '2010-12-09'], { ...env, IDEM_SOURCES: JSON.stringify({ shop: { url: down.href } }) });
    expect(run.code, run.stderr).toBe(75);
    expect(summaryOf(run).err.message).toBe(`source database "shop" at 127.0.0.1:${port} stayed unavailable through 4 attempts (connection refused); retry later`);
    expect(run.stderr).not.toContain(CANARY);
    expect(await db.knex('job_runs').where({ job_name: PIPELINE, run_key: '2010-12-09' }).first('status')).toEqual({ status: 'failed' });
    expect(await stored('2010-12-09')).toEqual([]);
  });
});
