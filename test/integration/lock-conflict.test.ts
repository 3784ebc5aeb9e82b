import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Database as IdemDatabase } from '../../src/db/database.ts';
import { retryLockConflict } from '../../src/db/retry-lock-conflict.ts';
import { SqliteDialect } from '../../src/dialect/sqlite/sqlite-dialect.ts';
import { createTestDatabase, describeEachDialect, type TestDatabase } from '../helpers/dialects.ts';
import { openTestDatabase } from '../helpers/test-db.ts';

/**
 * Two transactions that each hold the row the other wants: the server fails one of them.
 * @returns that one's error.
 */
async function provokeDeadlock(a: IdemDatabase, b: IdemDatabase): Promise<unknown> {
  const ta = await a.knex.transaction();
  const tb = await b.knex.transaction();
  await ta('conflict').where({ id: 1 }).update({ v: 1 });
  await tb('conflict').where({ id: 2 }).update({ v: 2 });
  const results = await Promise.allSettled([ta('conflict').where({ id: 2 }).update({ v: 1 }), tb('conflict').where({ id: 1 }).update({ v: 2 })]);
  const failed = results.findIndex((r) => r.status === 'rejected');
  for (const [i, trx] of [ta, tb].entries()) await (i === failed ? trx.rollback().catch(() => undefined) : trx.commit());
  expect(failed).toBeGreaterThanOrEqual(0);
  return (results[failed] as PromiseRejectedResult).reason;
}

describeEachDialect('lock conflicts between concurrent writers', (dialect) => {
  let testDb: TestDatabase;
  let a: IdemDatabase;
  let b: IdemDatabase;

  beforeEach(async (context) => {
    testDb = await createTestDatabase(dialect, context.task.name);
    a = await openTestDatabase(testDb.url);
    b = await openTestDatabase(testDb.url);
    await a.knex.schema.createTable('conflict', (t) => {
      t.integer('id').primary();
      t.integer('v');
    });
    await a.knex('conflict').insert([{ id: 1, v: 0 }, { id: 2, v: 0 }]);
  });

  afterEach(async () => {
    await a.close();
    await b.close();
    await testDb.drop();
  });

  it.skipIf(dialect === 'sqlite')('recognises the deadlock the server reports, and retries work that met it', async () => {
    const deadlock = await provokeDeadlock(a, b);
    expect(a.adapter.isLockConflict(deadlock)).toBe(true);

    let tries = 0;
    const result = await retryLockConflict(a.adapter, async () => {
      tries += 1;
      if (tries < 3) throw deadlock;
      return a.knex('conflict').where({ id: 1 }).update({ v: 7 });
    });
    expect([result, tries]).toEqual([1, 3]);
    expect((await a.knex('conflict').where({ id: 1 }).first()).v).toBe(7);
  });

  it('throws any other error at once, without retrying', async () => {
    let tries = 0;
    const error = await retryLockConflict(a.adapter, async () => {
      tries += 1;
      return a.knex('no_such_table').select('*');
    }).catch((e: unknown) => e);
    expect(a.adapter.isLockConflict(error)).toBe(false);
    expect(String(error)).toMatch(/no_such_table/);
    expect(tries).toBe(1);
  });
});

describe('sqlite: a busy database is a lock conflict', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'idem-busy-'));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('recognises SQLITE_BUSY from a writer that found the write lock taken', () => {
    const file = path.join(dir, 'busy.sqlite3');
    const holder = new Database(file);
    const other = new Database(file, { timeout: 0 });
    try {
      holder.exec('create table t (v integer); begin immediate; insert into t values (1)');
      let error: unknown;
      try {
        other.exec('insert into t values (2)');
      } catch (caught) {
        error = caught;
      }
      expect((error as { code?: string }).code).toBe('SQLITE_BUSY');
      expect(new SqliteDialect(file).isLockConflict(error)).toBe(true);
      expect(new SqliteDialect(file).isLockConflict(new Error('SQLITE_BUSY in a message only'))).toBe(false);
    } finally {
      holder.exec('rollback');
      holder.close();
      other.close();
    }
  });
});
