import knexFactory, { type Knex } from 'knex';
import { afterEach, beforeEach, expect, it } from 'vitest';
import type { Database } from '../../src/db/database.ts';
import { mysqlLockName } from '../../src/dialect/mysql/mysql-lock-name.ts';
import { appLockName } from '../../src/runs/app-lock-name.ts';
import { pipeline } from '../../pipelines/online-retail-invoices.ts';
import { describeEachDialect, type TestDialect } from '../helpers/dialects.ts';
import { openFaultWorld, type FaultWorld } from '../helpers/open-fault-world.ts';
import { readAftermath } from '../helpers/read-aftermath.ts';
import { runCliWhenUnlocked, startCli, summaryOf } from '../helpers/run-cli.ts';
import { waitForAppLock } from '../helpers/wait-for-app-lock.ts';

const DAY = '2010-12-01';
const RUN = ['run', pipeline.name, '--date', DAY];
const LOCK = appLockName(pipeline.name);

/**
 * Ends the app lock of the run in process `pid` the way a database can lose it: the server ends
 * the lock's session (an administrator's kill, a failover, a network cut), or on SQLite the lease
 * row disappears. Each dialect finds the lock's session by what its adapter labels it with.
 * @returns how many sessions (or lease rows) were ended: 1 when the lock was found.
 */
async function loseLock(dialect: TestDialect, db: Database, url: string, pid: number): Promise<number> {
  if (dialect === 'sqlite') return db.knex('app_locks').where({ name: LOCK }).delete();
  const admin = async <T>(client: string, connection: Knex.Config['connection'], work: (k: Knex) => Promise<T>): Promise<T> => {
    const k = knexFactory({ client, connection, pool: { min: 0, max: 1 } });
    try {
      return await work(k);
    } finally {
      await k.destroy();
    }
  };
  switch (dialect) {
    case 'postgres':
      // The lock's own pg.Client has application_name "idem pid <pid> on <host>, run <key>".
      return admin('pg', url, async (k) => {
        const { rows } = await k.raw("select pg_terminate_backend(pid) as ok from pg_stat_activity where datname = current_database() and application_name like ?", [`idem pid ${pid} on %`]);
        return (rows as { ok: boolean }[]).filter((r) => r.ok).length;
      });
    case 'mysql':
      // GET_LOCK names carry the database; IS_USED_LOCK gives the holding connection's id.
      return admin('mysql2', url, async (k) => {
        const [[row]] = (await k.raw('select is_used_lock(?) as holder', [mysqlLockName(new URL(url).pathname.slice(1), LOCK)])) as [{ holder: number | null }[]];
        if (row?.holder === null || row?.holder === undefined) return 0;
        await k.raw(`kill ${Number(row.holder)}`);
        return 1;
      });
    case 'mssql': {
      // The lock's own session has program_name "idem pid <pid> on <host>, run <key>".
      const [row] = (await db.knex.raw('select session_id from sys.dm_exec_sessions where program_name like ?', [`idem pid ${pid} on %`])) as { session_id: number }[];
      if (!row) return 0;
      await db.knex.raw(`kill ${Number(row.session_id)}`);
      return 1;
    }
  }
}

describeEachDialect('the app lock is lost mid-run', (dialect) => {
  let world: FaultWorld;
  let db: FaultWorld['db'];
  let sandbox: FaultWorld['sandbox'];
  let env: Record<string, string>;

  beforeEach(async (context) => {
    world = await openFaultWorld(dialect, context.task.name);
    ({ db, sandbox } = world);
    env = world.env();
  });

  afterEach(() => world.close());

  it('the run notices before its next durable step, exits 1 naming the lock, and writes nothing more; a rerun completes it', async () => {
    const run = startCli(RUN, { ...env, IDEM_FAILPOINTS: 'after-stage=sleep:3000' });
    // The stage log line comes just before the after-stage sleep: the lock is held and idle.
    await new Promise<void>((resolve, reject) => {
      let seen = '';
      run.child.stdout!.on('data', (chunk: Buffer) => {
        seen += chunk.toString();
        if (seen.includes('"stage":"stage"')) resolve();
      });
      run.child.on('close', () => reject(new Error(`the run ended before staging\n${seen}`)));
    });
    expect(await loseLock(dialect, db, world.testDb.url, run.child.pid!)).toBe(1);

    const lost = await run.done;
    expect(lost.code).toBe(1);
    const summary = summaryOf(lost);
    expect(summary).toMatchObject({ outcome: 'failed', exitCode: 1 });
    expect(summary.msg).toMatch(/^run failed: app lock "idem:online-retail-invoices" was lost \(.+\); stopped before the next durable step, rerun to resume$/);
    // Staged, then stopped: no target row, no ledger item, no request.
    expect(summary.counts.stage).toMatchObject({ staged: 143 });
    expect(summary.counts.upsert).toBeUndefined();
    expect(await db.knex(pipeline.tables.target).select('id')).toEqual([]);
    expect(await db.knex('post_ledger').select('id')).toEqual([]);
    expect(sandbox.state.stats().requests).toEqual([]);
    const [jobRun] = await db.knex('job_runs').select('status', 'attempts', 'error');
    expect(jobRun).toMatchObject({ status: 'failed', attempts: 1 });
    expect(jobRun.error).toContain('app lock "idem:online-retail-invoices" was lost');

    await waitForAppLock(db, pipeline.name);
    const rerun = await runCliWhenUnlocked(RUN, env);
    expect(rerun.code).toBe(0);
    expect(await readAftermath(db, sandbox)).toMatchObject({
      remoteRecords: 143,
      notOnceRemotely: [],
      stagingRows: 0,
      jobRuns: [{ runKey: DAY, status: 'completed', attempts: 2 }],
      lockFree: true,
    });
    expect((await readAftermath(db, sandbox)).rows).toHaveLength(143);
  });
});
