import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pino } from 'pino';
import { expect, it } from 'vitest';
import { pipeline } from '../../pipelines/online-retail-invoices.ts';
import { column } from '../../src/column/column-type.ts';
import { loadConfig } from '../../src/config/load-config.ts';
import type { Database } from '../../src/db/database.ts';
import type { DialectAdapter } from '../../src/dialect/dialect-adapter.ts';
import type { DuplicateKeyRule } from '../../src/pipeline/pipeline-definition.ts';
import { runPipeline } from '../../src/runner/run-pipeline.ts';
import { fileRunKey } from '../../src/runs/run-key.ts';
import { createTestDatabase, describeEachDialect } from '../helpers/dialects.ts';
import { writeTempSource } from '../helpers/fixtures.ts';
import { openFaultWorld, type FaultWorld } from '../helpers/open-fault-world.ts';
import { readInvoices } from '../helpers/read-target.ts';
import { PROJECT_DIR, runCli, summaryOf } from '../helpers/run-cli.ts';
import { openMigratedDatabase } from '../helpers/test-db.ts';
import { createTestOrdersTables, runTestOrders } from '../helpers/test-orders-pipeline.ts';

// Change detection before staging (issue 29) against full staging: `--force-reconcile` stages and
// compares every record, as every run did before; a plain or `--force` run leaves out what the
// target holds as it is. Both must leave the same rows, ledger and requests.

const DAY1 = '2010-12-01';
const DAY2 = '2010-12-02';
const INVOICE_DATE = 4;

/** A day's file as lines (header first), from the fixtures. */
const fixtureLines = (date: string): string[] => readFileSync(path.join(PROJECT_DIR, 'fixtures', 'online-retail', `${date}.csv`), 'utf8').replace(/\n$/, '').split('\n');
const invoiceOf = (line: string): string => line.split(',')[0]!;

/**
 * The corrected files: in day 1, the first invoice's first quantity changed, the second invoice
 * loses its last line, and the third invoice moves to day 2's file (the same lines, date and all).
 */
function correctedDays(): { day1: string; day2: string; changed: string; shortened: string; moved: string; unposted: string } {
  const [header, ...lines] = fixtureLines(DAY1);
  const invoices = [...new Set(lines.map(invoiceOf))];
  const [changed, shortened, moved, unposted] = invoices as [string, string, string, string];
  const firstOfChanged = lines.findIndex((line) => invoiceOf(line) === changed);
  const lastOfShortened = lines.findLastIndex((line) => invoiceOf(line) === shortened);
  const day1 = lines
    .map((line, i) => (i === firstOfChanged ? line.replace(/^([^,]*,[^,]*,[^,]*,)(\d+),/, (_m, head: string, quantity: string) => `${head}${Number(quantity) + 1},`) : line))
    .filter((line, i) => i !== lastOfShortened && invoiceOf(line) !== moved);
  const [header2, ...lines2] = fixtureLines(DAY2);
  const day2 = [...lines2, ...lines.filter((line) => invoiceOf(line) === moved)];
  expect(header2).toBe(header);
  expect(lines.filter((line) => invoiceOf(line) === moved).every((line) => line.split(',')[INVOICE_DATE]!.startsWith(DAY1))).toBe(true);
  return { day1: `${[header, ...day1].join('\n')}\n`, day2: `${[header, ...day2].join('\n')}\n`, changed, shortened, moved, unposted };
}

/** What a world holds after its runs: target, derived totals, ledger, and the requests that wrote at the destination. */
async function aftermath(world: FaultWorld) {
  const invoices = (await readInvoices(world.db, { stamps: false })).map(({ first_run_key: _f, ...row }) => row);
  const totals = await world.db.knex('online_retail_daily_totals').select('*').orderBy(['business_date', 'country']);
  const ledger = await world.db.knex('post_ledger').select('source_reference', 'row_hash', 'status', 'idempotency_key', 'run_key').orderBy(['source_reference', 'id']);
  const writes = world.sandbox.state.stats().requests.filter((r) => r.method !== 'GET').map((r) => `${r.method} ${r.reference} ${r.idempotencyKey}`).sort();
  return { invoices, totals: totals.map(({ id: _id, ...row }: Record<string, unknown>) => row), ledger, writes };
}

describeEachDialect('change detection before staging leaves what full staging leaves (issue 29)', (dialect) => {
  it('a file with a changed quantity, a deleted line and a record that moves between dates: the same rows, ledger and posts; --force-reconcile restores a hand edit', async ({ task }) => {
    const detected = await openFaultWorld(dialect, `${task.name} detected`);
    const full = await openFaultWorld(dialect, `${task.name} full`);
    const dir = mkdtempSync(path.join(tmpdir(), 'idem-change-detection-'));
    try {
      cpSync(path.join(PROJECT_DIR, 'fixtures', 'online-retail'), dir, { recursive: true });
      const run = async (world: FaultWorld, date: string, flag?: string) => {
        const result = await runCli(['run', pipeline.name, '--date', date, ...(flag ? [flag] : [])], { ...world.env(), IDEM_SOURCE_DIR: dir });
        expect(result.code, result.stderr).toBe(0);
        const { stage, upsert: { ms: _ms, ...upsert } } = summaryOf(result).counts as { stage: Record<string, number>; upsert: Record<string, unknown> };
        return { stage, upsert };
      };
      // Both worlds load the two days as exported, then the corrected files: one by plain
      // (`--force`, the dates being completed) runs, the other by full staging.
      for (const date of [DAY1, DAY2]) {
        const [left, right] = [await run(detected, date), await run(full, date)];
        expect(left.upsert).toEqual(right.upsert);
      }
      const corrected = correctedDays();
      // An invoice the corrected file holds as it is, whose ledger items are gone (as for a
      // destination added after it was loaded): full staging enqueues it again, and so must detection.
      for (const world of [detected, full]) expect(await world.db.knex('post_ledger').where({ source_reference: corrected.unposted }).delete()).toBe(1);
      writeFileSync(path.join(dir, `${DAY1}.csv`), corrected.day1);
      writeFileSync(path.join(dir, `${DAY2}.csv`), corrected.day2);
      for (const date of [DAY1, DAY2]) {
        const [left, right] = [await run(detected, date, '--force'), await run(full, date, '--force-reconcile')];
        expect(left.upsert).toEqual(right.upsert);
        expect(left.stage.records).toBe(right.stage.records);
        expect(right.stage.unchanged).toBeUndefined();
        // Day 1 stages its two changed invoices and the one its ledger lacks; day 2's moved invoice is held as it is.
        expect(left.stage).toMatchObject(date === DAY1 ? { staged: 3, unchanged: right.stage.records! - 3 } : { staged: 0, unchanged: right.stage.records });
        expect(left.upsert).toMatchObject(date === DAY1 ? { inserted: 0, updated: 2 } : { inserted: 0, updated: 0 });
      }
      const [left, right] = [await aftermath(detected), await aftermath(full)];
      expect(left.invoices.length).toBeGreaterThan(100);
      expect(left).toEqual(right);
      expect(left.writes.filter((w) => w.startsWith('PUT')).map((w) => w.split(' ')[1]).sort()).toEqual([corrected.changed, corrected.shortened].sort());
      expect(left.ledger.filter((item) => item.source_reference === corrected.unposted)).toHaveLength(1);
      const moved = left.invoices.find((row) => row.source_reference === corrected.moved)!;
      expect(moved.last_changed_run_key).toBe(DAY1);

      // A value edited in the target by hand, its row hash left as it was: change detection trusts
      // the row hash, so --force leaves the edit; --force-reconcile writes the file's value back.
      const edited = corrected.changed;
      const original = (await readInvoices(detected.db)).find((row) => row.source_reference === edited)!.country;
      await detected.db.knex(pipeline.tables.target).where({ source_reference: edited }).update({ country: 'Atlantis' });
      const country = async () => (await detected.db.knex(pipeline.tables.target).first('country').where({ source_reference: edited })).country as string;
      expect((await run(detected, DAY1, '--force')).upsert).toMatchObject({ updated: 0 });
      expect(await country()).toBe('Atlantis');
      expect((await run(detected, DAY1, '--force-reconcile')).upsert).toMatchObject({ updated: 1 });
      expect(await country()).toBe(original);
    } finally {
      rmSync(dir, { recursive: true, force: true });
      await detected.close();
      await full.close();
    }
  }, 120_000);

  // The test-orders pipeline: one record per line, so a key can occur twice. The first file loads
  // A..D; the second repeats keys around the records the target holds as they are.
  const FIRST = 'ref,amount\nA,1.00\nB,2.00\nC,3.00\nD,4.00\n';
  // A: held, then changed (last wins: 9.00). B: changed, then held (last wins: 2.00, unchanged).
  // C: held twice. D: held once. E: new.
  const SECOND = 'ref,amount\nA,1.00\nA,9.00\nB,7.00\nB,2.00\nC,3.00\nC,3.00\nD,4.00\nE,5.00\n';

  // Only the held record after its staged duplicate: nothing recurs while reading, staging says so.
  const STAGED_THEN_HELD = 'ref,amount\nB,7.00\nB,2.00\nE,5.00\n';

  it.each<[DuplicateKeyRule, { second?: string; target?: [string, string][]; upsert?: object; error?: string }]>([
    ['last-wins', { target: [['A', '9.00'], ['B', '2.00'], ['C', '3.00'], ['D', '4.00'], ['E', '5.00']], upsert: { inserted: 1, updated: 1, unchanged: 3 } }],
    ['last-wins', { second: STAGED_THEN_HELD, target: [['A', '1.00'], ['B', '2.00'], ['C', '3.00'], ['D', '4.00'], ['E', '5.00']], upsert: { inserted: 1, updated: 0, unchanged: 1 } }],
    ['error', { error: "3 key(s) occur more than once in this run and the pipeline's rule is duplicateKeys: 'error': A (2×, lines 2..3), B (2×, lines 4..5), C (2×, lines 6..7)" }],
    ['collapse-identical', { error: "2 key(s) occur more than once with different values and the pipeline's rule is duplicateKeys: 'collapse-identical': A (2×, lines 2..3), B (2×, lines 4..5)" }],
  ])('duplicates of records the target holds are judged by the rule %s as under full staging', async (rule, expected) => {
    const outcomes = [];
    for (const forceReconcile of [false, true]) {
      const testDb = await createTestDatabase(dialect, `${rule} ${forceReconcile}`);
      const db = await openMigratedDatabase(testDb.url);
      try {
        await createTestOrdersTables(db);
        const first = path.join(writeTempSource('first.csv', FIRST), 'first.csv');
        const second = path.join(writeTempSource('second.csv', expected.second ?? SECOND), 'second.csv');
        expect((await runTestOrders(db, testDb.url, first, { duplicateKeys: rule })).outcome).toBe('completed');
        const result = await runTestOrders(db, testDb.url, second, { duplicateKeys: rule, forceReconcile });
        outcomes.push({ outcome: result.outcome, error: result.error?.message, upsert: result.counts.upsert && { ...result.counts.upsert, ms: 0 }, target: await amounts(db) });
      } finally {
        await db.close();
        await testDb.drop();
      }
    }
    const [detected, full] = outcomes;
    expect(detected).toEqual(full);
    if (expected.target) {
      expect(detected!.target).toEqual(expected.target);
      expect(detected!.upsert).toMatchObject(expected.upsert!);
    } else {
      expect(detected!.error).toBe(expected.error);
      expect(detected!.target).toEqual([['A', '1.00'], ['B', '2.00'], ['C', '3.00'], ['D', '4.00']]);
    }
  });

  it('the records one look-up leaves to stage are one bulk load (one COPY on PostgreSQL), however many batches they fill', async () => {
    const testDb = await createTestDatabase(dialect, 'one load per look-up');
    const db = await openMigratedDatabase(testDb.url);
    // The batch sizes of each load of the staging table, seen through the adapter the run uses.
    const loads: number[][] = [];
    async function* counted(batches: AsyncIterable<unknown[][]>, sizes: number[]): AsyncGenerator<unknown[][]> {
      for await (const batch of batches) {
        sizes.push(batch.length);
        yield batch;
      }
    }
    const adapter = new Proxy(db.adapter, {
      get(target, property) {
        const value: unknown = Reflect.get(target, property, target);
        if (property !== 'bulkLoad') return typeof value === 'function' ? value.bind(target) : value;
        const bulkLoad: DialectAdapter['bulkLoad'] = (knex, table, columns, batches, specs) => {
          const sizes: number[] = [];
          if (table === pipeline.tables.staging) loads.push(sizes);
          return target.bulkLoad(knex, table, columns, counted(batches, sizes), specs);
        };
        return bulkLoad;
      },
    });
    try {
      const config = { ...loadConfig({}, tmpdir()), databaseUrl: testDb.url };
      const runFile = async (date: string, force = false) => {
        const file = path.join(writeTempSource(`${date}.csv`, `${fixtureLines(date).join('\n')}\n`), `${date}.csv`);
        const result = await runPipeline({ config, db: { ...db, adapter }, logger: pino({ level: 'silent' }) }, { pipeline: { ...pipeline, destinations: [] }, runKey: await fileRunKey(file), triggeredBy: 'test', force });
        expect(result.outcome, result.error?.message).toBe('completed');
        return result.counts.stage as { staged: number; unchanged?: number };
      };
      // Change detection looks up once the target holds records: day 2 first, then day 1, whose
      // 3,108 lines are fewer invoices than one look-up takes, and several batches of values.
      await runFile(DAY2);
      loads.length = 0;
      const { staged } = await runFile(DAY1);
      expect(staged).toBe(new Set(fixtureLines(DAY1).slice(1).map(invoiceOf)).size);
      expect(loads).toHaveLength(1);
      expect(loads[0]!.length).toBeGreaterThan(2);
      expect(loads[0]!.reduce((sum, rows) => sum + rows, 0)).toBe(staged);
      // A rerun that changes nothing leaves every record out: no load at all.
      expect(await runFile(DAY1, true)).toMatchObject({ staged: 0, unchanged: staged });
      expect(loads).toHaveLength(1);
    } finally {
      await db.close();
      await testDb.drop();
    }
  });
});

/** test_orders as [reference, amount], by reference. */
async function amounts(db: Database): Promise<[string, string][]> {
  const rows = (await db.knex('test_orders').select('source_reference', 'amount').orderBy('source_reference')) as { source_reference: string; amount: unknown }[];
  return rows.map((r) => [r.source_reference, db.adapter.fromDriverValue(column.decimal(10, 2), r.amount) as string]);
}
