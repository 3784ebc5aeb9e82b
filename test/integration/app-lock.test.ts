import knexFactory from 'knex';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Database } from '../../src/db/database.ts';
import type { AppLock } from '../../src/dialect/app-lock.ts';
import { mysqlLockName } from '../../src/dialect/mysql/mysql-lock-name.ts';
import { LockLostError } from '../../src/errors/lock-lost-error.ts';
import { createTestDatabase, describeEachDialect, type TestDatabase } from '../helpers/dialects.ts';
import { openMigratedDatabase, openTestDatabase } from '../helpers/test-db.ts';

const request = (owner: string, leaseMs = 60_000) => ({ name: 'idem:test-lock', owner, leaseMs });

describeEachDialect('the app lock', (dialect) => {
  let testDb: TestDatabase;
  let a: Database;
  let b: Database;
  const held: AppLock[] = [];

  beforeEach(async (context) => {
    testDb = await createTestDatabase(dialect, context.task.name);
    a = await openMigratedDatabase(testDb.url);
    b = await openTestDatabase(testDb.url);
  });

  afterEach(async () => {
    for (const lock of held.splice(0)) await lock.release();
    await a.close();
    await b.close();
    await testDb.drop();
  });

  async function take(db: Database, owner: string, leaseMs?: number): Promise<AppLock> {
    const attempt = await db.adapter.tryAcquireAppLock(db.knex, request(owner, leaseMs));
    if (!attempt.acquired) throw new Error(`expected to acquire, held by ${attempt.holder}`);
    held.push(attempt.lock);
    return attempt.lock;
  }

  it('is exclusive across connections, names its holder, and is free again after release', async () => {
    const lock = await take(a, 'run A');
    const second = await b.adapter.tryAcquireAppLock(b.knex, request('run B'));
    expect(second.acquired).toBe(false);
    expect(!second.acquired && second.holder).toContain('run A');
    // The holder may ask again from its own pool: locks are never taken through the pool.
    expect((await a.adapter.tryAcquireAppLock(a.knex, request('run A again'))).acquired).toBe(false);
    await lock.assertHeld();
    await lock.release();
    await lock.release();
    await take(b, 'run B');
  });

  // Dialect-specific release paths: defined only where they apply.
  if (dialect === 'sqlite') it('a lease nobody renews expires, and the old holder then knows it lost the lock', async () => {
    const lock = await take(a, 'run A', 300);
    // A crashed holder stops renewing; simulate by stopping the timer without deleting the row.
    await a.knex('app_locks').update({ expires_at: Date.now() - 1 });
    await take(b, 'run B', 60_000);
    await expect(lock.assertHeld()).rejects.toBeInstanceOf(LockLostError);
  });

  if (dialect === 'sqlite') it('a lease past its end by the holder\'s own clock is not valid at a request\'s write, though a round trip would renew it', async () => {
    const lock = await take(a, 'run A', 300);
    expect(() => lock.assertValidNow()).not.toThrow();
    // The process stalls past its lease (its renewal timer cannot run): as stopped between its
    // last proof and a request's write.
    const stalledUntil = performance.now() + 400;
    while (performance.now() < stalledUntil);
    expect(() => lock.assertValidNow()).toThrow(LockLostError);
    // Nobody took it: the proof with a round trip renews it.
    await expect(lock.assertValid()).resolves.toBeUndefined();
    expect(() => lock.assertValidNow()).not.toThrow();
  });

  if (dialect === 'postgres') it('is released at once when its session dies, and the holder notices before its next step', async () => {
    const lock = await take(a, 'run A');
    const admin = knexFactory({ client: 'pg', connection: testDb.url, pool: { min: 0, max: 1 } });
    try {
      const killed = await admin.raw(
        // With a timeout (PostgreSQL 14+) it waits until the backend has exited, and so released its
        // locks; without one it only signals it, and the next take could still find the lock held.
        "select pg_terminate_backend(pid, 10000) as ok from pg_stat_activity where datname = current_database() and application_name like 'idem run A%'",
      );
      expect(killed.rows).toEqual([{ ok: true }]);
    } finally {
      await admin.destroy();
    }
    await take(b, 'run B');
    await expect(lock.assertHeld()).rejects.toBeInstanceOf(LockLostError);
  });

  if (dialect === 'postgres') it('takes the next lock cycle on the same session, named for its new owner, and a dead session is never handed out again', async () => {
    const backend = async (): Promise<{ pid: number; name: string }[]> =>
      (await b.knex.raw("select pid, application_name as name from pg_stat_activity where datname = current_database() and application_name like 'idem run 2010-%' order by pid")).rows;
    const first = await take(a, 'run 2010-12-01');
    const [session] = await backend();
    expect(session!.name).toBe('idem run 2010-12-01');
    await first.release();
    // Released: the lock is free for anyone, the session stays for this process's next cycle.
    const other = await take(b, 'run B');
    await other.release();
    const second = await take(a, 'run 2010-12-02');
    expect(await backend()).toEqual([{ pid: session!.pid, name: 'idem run 2010-12-02' }]);
    await b.knex.raw('select pg_terminate_backend(?)', [session!.pid]);
    await expect(second.assertHeld()).rejects.toBeInstanceOf(LockLostError);
    await second.release();
    const third = await take(a, 'run 2010-12-03');
    await third.assertHeld();
    const [fresh] = await backend();
    expect(fresh!.pid).not.toBe(session!.pid);
    // A kept session whose backend dies between cycles (a restart) is dropped, never handed out.
    await third.release();
    await b.knex.raw('select pg_terminate_backend(?)', [fresh!.pid]);
    const fourth = await take(a, 'run 2010-12-04');
    await fourth.assertHeld();
    expect((await backend()).map((s) => s.name)).toEqual(['idem run 2010-12-04']);
  });

  if (dialect === 'mysql') it('is free at once when its connection is KILLed, and the old holder notices before its next step', async () => {
    const lock = await take(a, 'run A');
    const admin = knexFactory({ client: 'mysql2', connection: testDb.url, pool: { min: 0, max: 1 } });
    try {
      const [[{ holder }]] = await admin.raw('select is_used_lock(?) as holder', [mysqlLockName(testDb.url.split('/').pop()!, 'idem:test-lock')]);
      expect(holder).toEqual(expect.any(Number));
      await admin.raw(`kill ${Number(holder)}`);
    } finally {
      await admin.destroy();
    }
    await take(b, 'run B');
    await expect(lock.assertHeld()).rejects.toBeInstanceOf(LockLostError);
  });

  if (dialect === 'mssql') it('is free at once when its session is KILLed, and the old holder notices before its next step', async () => {
    const lock = await take(a, 'run A');
    // The lock session's program_name is the owner: that is how a second run names the holder.
    const killed = await a.knex.raw("select session_id from sys.dm_exec_sessions where database_id = db_id() and program_name like 'idem run A%'");
    expect(killed).toHaveLength(1);
    await a.knex.raw(`kill ${Number((killed as { session_id: number }[])[0]!.session_id)}`);
    await take(b, 'run B');
    await expect(lock.assertHeld()).rejects.toBeInstanceOf(LockLostError);
  });
});
