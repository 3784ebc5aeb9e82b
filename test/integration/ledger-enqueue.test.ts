import { afterEach, beforeEach, expect, it } from 'vitest';
import type { Database } from '../../src/db/database.ts';
import { enqueueLedgerItems } from '../../src/ledger/enqueue-ledger-items.ts';
import { createTestDatabase, describeEachDialect, type TestDatabase } from '../helpers/dialects.ts';
import { openMigratedDatabase } from '../helpers/test-db.ts';

const STAGING = 'stg_enqueue';
const JOB = 'enqueue-test';
const DESTINATION = 'accounting';
/** More than two pages of the enqueue's 1,000 staged rows per read. */
const RECORDS = 2345;

const hashOf = (version: string, i: number): string => `${version}${String(i).padStart(63, '0')}`;

// The enqueue reads the staged rows a page at a time and looks each record's newest live
// version up in the ledger, while its own inserts grow the ledger page after page.
describeEachDialect('the ledger enqueue over several pages', (dialect) => {
  let testDb: TestDatabase;
  let db: Database;

  beforeEach(async (context) => {
    testDb = await createTestDatabase(dialect, context.task.name);
    db = await openMigratedDatabase(testDb.url);
    // Only the enqueue may analyse the ledger here: an autoanalyze would pass for its refresh.
    if (dialect === 'postgres') await db.knex.raw('alter table post_ledger set (autovacuum_enabled = false)');
    await db.knex.schema.createTable(STAGING, (t) => {
      t.integer('seq').notNullable().primary();
      t.string('source_system', 200).notNullable();
      t.string('source_reference', 200).notNullable();
      t.string('row_hash', 64).notNullable();
    });
    const rows = Array.from({ length: RECORDS }, (_, i) => ({ seq: i + 1, source_system: 'test', source_reference: `R${i}`, row_hash: hashOf('a', i) }));
    for (let i = 0; i < rows.length; i += 100) await db.knex(STAGING).insert(rows.slice(i, i + 100));
  });

  afterEach(async () => {
    await db.close();
    await testDb.drop();
  });

  const enqueue = (runKey: string): Promise<number> =>
    db.knex.transaction((trx) =>
      enqueueLedgerItems({ knex: trx, adapter: db.adapter }, { jobName: JOB, destination: DESTINATION, staging: STAGING, runKey, nowIso: '2026-11-30T12:00:00.000Z' }),
    );
  const byStatus = async (): Promise<Record<string, number>> =>
    Object.fromEntries(((await db.knex('post_ledger').select('status').count({ n: '*' }).groupBy('status')) as { status: string; n: number | string }[]).map((r) => [r.status, Number(r.n)]));
  const restage = async (version: string, references: number[]): Promise<void> => {
    for (const i of references) await db.knex(STAGING).where({ source_reference: `R${i}` }).update({ row_hash: hashOf(version, i) });
  };

  it('enqueues every new record once, nothing for unchanged ones, and each change (and change back) once', async () => {
    expect(await enqueue('run-1')).toBe(RECORDS);
    expect(await byStatus()).toEqual({ pending: RECORDS });
    expect(await db.knex('post_ledger').countDistinct({ n: 'idempotency_key' }).first().then((r) => Number(r!.n))).toBe(RECORDS);
    if (dialect === 'postgres') {
      // The enqueue refreshed the ledger's statistics after its first page, inside its transaction.
      const { rows } = await db.knex.raw("select reltuples::int as n from pg_class where relname = 'post_ledger'");
      expect(rows[0].n).toBeGreaterThanOrEqual(1000);
    }

    expect(await enqueue('run-2')).toBe(0);

    const changed = [0, 1500, RECORDS - 1];
    await restage('b', changed);
    expect(await enqueue('run-3')).toBe(3);
    expect(await byStatus()).toEqual({ pending: RECORDS, superseded: 3 });

    // A → B → A: A is posted again under a new key; B, never posted, is superseded.
    await restage('a', changed);
    expect(await enqueue('run-4')).toBe(3);
    expect(await byStatus()).toEqual({ pending: RECORDS - 3 + 3, superseded: 6 });
    const again = (await db.knex('post_ledger').where({ run_key: 'run-4' }).orderBy('source_reference').pluck('idempotency_key')) as string[];
    expect(again).toHaveLength(3);
    for (const key of again) expect(key).toMatch(/^idem-[0-9a-f]{40}#1$/);
  });

  if (dialect === 'postgres') it('analyses a ledger that has no statistics after a first page smaller than a full one, and only then', async () => {
    // A backfill's first date: without statistics, the next dates' look-ups went by the run index
    // and read every earlier item of the job per record.
    const reltuples = async (): Promise<number> => (await db.knex.raw("select reltuples::int as n from pg_class where relname = 'post_ledger'")).rows[0].n;
    await db.knex(STAGING).where('seq', '>', 150).delete();
    expect(await reltuples()).toBe(-1);
    expect(await enqueue('day-1')).toBe(150);
    expect(await reltuples()).toBe(150);
    // A later small page leaves statistics that exist alone (autovacuum keeps them).
    await restage('b', [0, 1, 2]);
    expect(await enqueue('day-2')).toBe(3);
    expect(await reltuples()).toBe(150);
  });
});
