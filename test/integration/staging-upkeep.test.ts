import { afterEach, beforeEach, expect, it } from 'vitest';
import type { Database } from '../../src/db/database.ts';
import { column } from '../../src/column/column-type.ts';
import { createTestDatabase, describeEachDialect, type TestDatabase } from '../helpers/dialects.ts';
import { openTestDatabase } from '../helpers/test-db.ts';

const TABLE = 'stg_upkeep';
const COLUMNS = ['seq', 'source_system', 'source_reference', 'row_hash'];
const SPECS = [column.integer(), column.text({ maxLength: 50 }), column.text({ maxLength: 50 }), column.text({ maxLength: 64 })];

async function* batchesOf(rows: unknown[][]): AsyncGenerator<unknown[][]> {
  yield rows;
}

const rowsOf = (n: number, from = 1): unknown[][] => Array.from({ length: n }, (_, i) => [from + i, 'test', `ref ${from + i}`, 'h'.repeat(64)]);

// What a staging table refilled every run needs from its adapter: emptied without leaving dead
// rows behind, cleared at a run's end so that the next run has nothing to empty, and
// (PostgreSQL) statistics that describe this run's rows, not an earlier load's.
describeEachDialect('staging upkeep', (dialect) => {
  let testDb: TestDatabase;
  let db: Database;

  beforeEach(async (context) => {
    testDb = await createTestDatabase(dialect, context.task.name);
    db = await openTestDatabase(testDb.url);
    await db.knex.schema.createTable(TABLE, (t) => {
      t.integer('seq').notNullable().primary();
      t.string('source_system', 50).notNullable();
      t.string('source_reference', 50).notNullable();
      t.string('row_hash', 64).notNullable();
    });
    // Only the adapter may analyse it here: an autoanalyze between two assertions would pass for it.
    if (dialect === 'postgres') await db.knex.raw(`alter table ${TABLE} set (autovacuum_enabled = false)`);
  });

  afterEach(async () => {
    await db.close();
    await testDb.drop();
  });

  const count = async (): Promise<number> => Number((await db.knex(TABLE).count({ n: '*' }))[0]!.n);

  it('emptyStaging deletes every row, and the next load starts from nothing', async () => {
    expect(await db.adapter.bulkLoad(db.knex, TABLE, COLUMNS, batchesOf(rowsOf(40)), SPECS)).toBe(40);
    await db.adapter.emptyStaging(db.knex, TABLE);
    expect(await count()).toBe(0);
    expect(await db.adapter.bulkLoad(db.knex, TABLE, COLUMNS, batchesOf(rowsOf(3, 100)), SPECS)).toBe(3);
    expect(await db.knex(TABLE).orderBy('seq').pluck('seq')).toEqual([100, 101, 102]);
  });

  it('clearStaging deletes every row after a run, and the next load starts from nothing', async () => {
    await db.adapter.bulkLoad(db.knex, TABLE, COLUMNS, batchesOf(rowsOf(40)), SPECS);
    await db.adapter.clearStaging(db.knex, TABLE);
    expect(await count()).toBe(0);
    await db.adapter.emptyStaging(db.knex, TABLE);
    expect(await db.adapter.bulkLoad(db.knex, TABLE, COLUMNS, batchesOf(rowsOf(3, 100)), SPECS)).toBe(3);
    expect(await db.knex(TABLE).orderBy('seq').pluck('seq')).toEqual([100, 101, 102]);
  });

  if (dialect === 'postgres') it('clearStaging gives every page back, so the next emptyStaging truncates nothing; what a run left is truncated', async () => {
    // TRUNCATE gives the table a new file (relfilenode); a table left as it is keeps its own.
    const file = async (): Promise<{ relfilenode: number; bytes: number }> =>
      (await db.knex.raw(`select relfilenode::int, pg_relation_size(oid)::int as bytes from pg_class where relname = ?`, [TABLE])).rows[0];
    await db.adapter.bulkLoad(db.knex, TABLE, COLUMNS, batchesOf(rowsOf(2000)), SPECS);
    const loaded = await file();
    expect(loaded.bytes).toBeGreaterThan(0);
    await db.adapter.clearStaging(db.knex, TABLE);
    expect(await file()).toEqual({ relfilenode: loaded.relfilenode, bytes: 0 });
    await db.adapter.emptyStaging(db.knex, TABLE);
    expect(await file()).toEqual({ relfilenode: loaded.relfilenode, bytes: 0 });

    // A run that stopped before its end left its rows: the next run's emptying truncates them.
    await db.adapter.bulkLoad(db.knex, TABLE, COLUMNS, batchesOf(rowsOf(2000)), SPECS);
    await db.adapter.emptyStaging(db.knex, TABLE);
    const truncated = await file();
    expect(truncated.bytes).toBe(0);
    expect(truncated.relfilenode).not.toBe(loaded.relfilenode);
    expect(await count()).toBe(0);

    // A plain DELETE (a clear whose VACUUM was refused) leaves its dead rows' pages: truncated too.
    await db.adapter.bulkLoad(db.knex, TABLE, COLUMNS, batchesOf(rowsOf(2000)), SPECS);
    await db.knex(TABLE).delete();
    expect((await file()).bytes).toBeGreaterThan(0);
    await db.adapter.emptyStaging(db.knex, TABLE);
    expect((await file()).bytes).toBe(0);
  });

  if (dialect === 'postgres') it('clearStaging does not wait for a lock another session holds on the table; the next emptyStaging truncates what it left', async () => {
    const bytes = async (): Promise<number> => (await db.knex.raw(`select pg_relation_size(?)::int as n`, [TABLE])).rows[0].n;
    await db.adapter.bulkLoad(db.knex, TABLE, COLUMNS, batchesOf(rowsOf(2000)), SPECS);
    // The lock a VACUUM (or an autovacuum against wraparound) holds; a DELETE does not need it.
    const other = await db.knex.transaction();
    try {
      await other.raw(`lock table ${TABLE} in share update exclusive mode`);
      await db.adapter.clearStaging(db.knex, TABLE);
      expect(await count()).toBe(0);
      expect(await bytes()).toBeGreaterThan(0);
    } finally {
      await other.rollback();
    }
    await db.adapter.emptyStaging(db.knex, TABLE);
    expect(await bytes()).toBe(0);
  });

  if (dialect === 'postgres') it('refreshStatistics leaves the planner statistics of the rows loaded, and emptying leaves no pages behind', async () => {
    const stats = async (): Promise<{ reltuples: number; bytes: number }> => {
      const { rows } = await db.knex.raw(`select reltuples::int as reltuples, pg_relation_size(oid)::int as bytes from pg_class where relname = ?`, [TABLE]);
      return rows[0];
    };
    // Never analysed: -1 (PostgreSQL 14+), which the planner reads as "some default size".
    expect((await stats()).reltuples).toBe(-1);
    await db.adapter.bulkLoad(db.knex, TABLE, COLUMNS, batchesOf(rowsOf(500)), SPECS);
    await db.adapter.refreshStatistics(db.knex, TABLE, ['source_reference']);
    expect(await stats()).toEqual({ reltuples: 500, bytes: expect.any(Number) });
    await db.adapter.emptyStaging(db.knex, TABLE);
    // A DELETE would keep every page (its rows dead until a vacuum); TRUNCATE leaves none.
    expect((await stats()).bytes).toBe(0);
    await db.adapter.bulkLoad(db.knex, TABLE, COLUMNS, batchesOf(rowsOf(7)), SPECS);
    await db.adapter.refreshStatistics(db.knex, TABLE, ['source_reference']);
    expect((await stats()).reltuples).toBe(7);
  });

  if (dialect === 'postgres') it('refreshStatistics after a write takes a table whose ANALYZE was rolled back (a dry run) for one without statistics', async () => {
    const state = async (): Promise<{ reltuples: number; columns: number }> =>
      (await db.knex.raw(`select reltuples::int as reltuples, (select count(*)::int from pg_stats where tablename = ?) as columns from pg_class where relname = ?`, [TABLE, TABLE])).rows[0];
    const trx = await db.knex.transaction();
    await trx(TABLE).insert(rowsOf(150).map(([seq, system, reference, hash]) => ({ seq, source_system: system, source_reference: reference, row_hash: hash })));
    await db.adapter.refreshStatistics(trx, TABLE, ['source_reference'], 150);
    await trx.rollback();
    // ANALYZE writes the row count in place, which outlives the rollback; its column statistics do not.
    expect(await state()).toEqual({ reltuples: 150, columns: 0 });
    await db.adapter.bulkLoad(db.knex, TABLE, COLUMNS, batchesOf(rowsOf(20)), SPECS);
    await db.adapter.refreshStatistics(db.knex, TABLE, ['source_reference'], 20);
    expect(await state()).toEqual({ reltuples: 20, columns: 1 });
  });

  if (dialect === 'postgres') it('refreshStatistics after a write refreshes only a write that is large for the table', async () => {
    const reltuples = async (): Promise<number> =>
      (await db.knex.raw(`select reltuples::int as n from pg_class where relname = ?`, [TABLE])).rows[0].n;
    const load = (n: number, from: number): Promise<number> => db.adapter.bulkLoad(db.knex, TABLE, COLUMNS, batchesOf(rowsOf(n, from)), SPECS);
    // Nothing written: never, not even on a table never analysed.
    await db.adapter.refreshStatistics(db.knex, TABLE, ['source_reference'], 0);
    expect(await reltuples()).toBe(-1);
    // A table never analysed: after any write (a backfill's first small date).
    await load(20, 1);
    await db.adapter.refreshStatistics(db.knex, TABLE, ['source_reference'], 20);
    expect(await reltuples()).toBe(20);
    // Below 1,000 rows written on a table with statistics: never.
    await load(1980, 21);
    await db.adapter.refreshStatistics(db.knex, TABLE, ['source_reference'], 999);
    expect(await reltuples()).toBe(20);
    await db.adapter.refreshStatistics(db.knex, TABLE, ['source_reference'], 1000);
    expect(await reltuples()).toBe(2000);
    // 20,000 rows counted: autoanalyze's threshold is 50 + 2,000 rows changed.
    await load(18_000, 2001);
    await db.adapter.refreshStatistics(db.knex, TABLE, ['source_reference']);
    expect(await reltuples()).toBe(20_000);
    await load(2050, 20_001);
    await db.adapter.refreshStatistics(db.knex, TABLE, ['source_reference'], 2050);
    expect(await reltuples()).toBe(20_000);
    await db.adapter.refreshStatistics(db.knex, TABLE, ['source_reference'], 2051);
    expect(await reltuples()).toBe(22_050);
  });
});
