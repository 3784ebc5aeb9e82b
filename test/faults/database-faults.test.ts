import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { pipeline } from '../../pipelines/online-retail-invoices.ts';
import { describeEachDialect, type TestDialect } from '../helpers/dialects.ts';
import { loseAppLock } from '../helpers/lose-app-lock.ts';
import { openFaultWorld, type FaultWorld } from '../helpers/open-fault-world.ts';
import { readAftermath } from '../helpers/read-aftermath.ts';
import { runCliWhenUnlocked, startCli, summaryOf } from '../helpers/run-cli.ts';
import { waitForAppLock } from '../helpers/wait-for-app-lock.ts';
import { waitForLogLine } from '../helpers/wait-for-log-line.ts';

const DAY = '2010-12-01';
const RUN = ['run', pipeline.name, '--date', DAY];

/** A fresh fault world for each test of the describe block that calls it. */
function faultWorldPerTest(dialect: TestDialect): { world: FaultWorld } {
  const each = {} as { world: FaultWorld };
  beforeEach(async (context) => {
    each.world = await openFaultWorld(dialect, context.task.name);
  });
  afterEach(() => each.world.close());
  return each;
}

describeEachDialect('the app lock is lost mid-run', (dialect) => {
  const each = faultWorldPerTest(dialect);

  it('the run notices before its next durable step, exits 75 (a lost session) or 1 (a lease taken) naming the lock, and writes nothing more, job_runs included; a rerun completes it and records the attempt that died', async () => {
    const { world } = each;
    const { db, sandbox } = world;
    const env = world.env();
    const run = startCli(RUN, { ...env, IDEM_FAILPOINTS: 'after-stage=sleep:3000' });
    // The stage log line comes just before the after-stage sleep: the lock is held and idle.
    await waitForLogLine(run, (line) => line.stage === 'stage');
    expect(await loseAppLock(dialect, db, world.testDb.url, pipeline.name, run.child.pid!)).toBe(1);

    const lost = await run.done;
    const summary = summaryOf(lost);
    if (dialect === 'sqlite') {
      // The lease row was taken: no connection was lost, the lock was.
      expect(lost.code).toBe(1);
      expect(summary).toMatchObject({ outcome: 'failed', exitCode: 1 });
      expect(summary.msg).toMatch(/^run failed: app lock "idem:online-retail-invoices" was lost \(.+\); stopped before the next durable step, rerun to resume$/);
    } else {
      // The server ended the lock's session (issue 28 §3): a lost connection, retry later.
      expect(lost.code).toBe(75);
      expect(summary).toMatchObject({ outcome: 'failed', exitCode: 75 });
      expect(summary.msg).toMatch(/^run failed: the database connection was lost during upsert; nothing of this stage was committed; a plain rerun resumes \(app lock "idem:online-retail-invoices" was lost: .+\)$/);
    }
    // Staged, then stopped: no target row, no ledger item, no request.
    expect(summary.counts.stage).toMatchObject({ staged: 143 });
    expect(summary.counts.upsert).toBeUndefined();
    expect(await db.knex(pipeline.tables.target).select('id')).toEqual([]);
    expect(await db.knex('post_ledger').select('id')).toEqual([]);
    expect(sandbox.state.stats().requests).toEqual([]);
    // An attempt that lost its lock writes nothing more to job_runs: the row is whoever holds the lock now.
    expect(await db.knex('job_runs').select('status', 'attempts', 'error')).toEqual([{ status: 'started', attempts: 1, error: null }]);

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
    // The rerun found the first attempt never ended, and says so.
    expect(await db.knex('job_runs').select('died_attempts')).toEqual([{ died_attempts: 1 }]);
    expect(rerun.logs.find((line) => line.diedAttempt === 1)?.msg).toMatch(/^attempt 1 of this run key never recorded its end .*: attempt 2 starts over$/);
  });
});

describeEachDialect('the database connections are cut mid-upsert', (dialect) => {
  const each = faultWorldPerTest(dialect);

  /** Ends every session of the run's database but this test's own, as a failover or a network cut would. */
  async function cutEverySession(db: FaultWorld['db']): Promise<number> {
    if (dialect === 'postgres') {
      const { rows } = await db.knex.raw('select pg_terminate_backend(pid, 10000) as ok from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()');
      return rows.length;
    }
    const [rows] = (await db.knex.raw('select id from information_schema.processlist where db = database() and id <> connection_id()')) as [{ id: number }[]];
    for (const row of rows) await db.knex.raw(`kill ${Number(row.id)}`).catch(() => undefined);
    return rows.length;
  }

  it.skipIf(dialect === 'sqlite' || dialect === 'mssql')('exits 75 in one sentence, commits nothing of the upsert, and a plain rerun completes it', { timeout: 60_000 }, async () => {
    const { world } = each;
    const { db, sandbox } = world;
    const env = world.env();
    // Held at the failpoint inside the upsert's transaction, after its writes and before its
    // commit, until the file exists: the failpoint logs that it waits. (A poll of the server's
    // open transactions missed it: InnoDB refreshes information_schema.innodb_trx only when it
    // was not read for 0.1 s, and a poll every 50 ms saw an empty list for the whole 8 s.)
    const release = path.join(mkdtempSync(path.join(tmpdir(), 'idem-cut-')), 'release');
    const run = startCli(RUN, { ...env, IDEM_FAILPOINTS: `mid-upsert=wait:${release}` });
    await waitForLogLine(run, (line) => line.failpoint === 'mid-upsert');
    expect(await cutEverySession(db)).toBeGreaterThanOrEqual(2);
    writeFileSync(release, '');
    const cut = await run.done;
    expect(cut.code, cut.stderr).toBe(75);
    const summary = summaryOf(cut);
    expect(summary.exitCode).toBe(75);
    expect(summary.msg).toMatch(/^run failed: the database connection was lost during upsert; nothing of this stage was committed; a plain rerun resumes \(.+\)$/);
    expect(await db.knex(pipeline.tables.target).select('id')).toEqual([]);
    expect(await db.knex('post_ledger').select('id')).toEqual([]);
    expect(sandbox.state.stats().requests).toEqual([]);
    // The failure is recorded when a new connection can do it, else the row stays started (DEAD in idem status).
    const [jobRun] = await db.knex('job_runs').select('status', 'error');
    expect(['failed', 'started']).toContain(jobRun.status);

    await waitForAppLock(db, pipeline.name);
    const rerun = await runCliWhenUnlocked(RUN, env);
    expect(rerun.code, rerun.stderr).toBe(0);
    expect(await readAftermath(db, sandbox)).toMatchObject({ remoteRecords: 143, notOnceRemotely: [], stagingRows: 0, jobRuns: [{ runKey: DAY, status: 'completed', attempts: 2 }], lockFree: true });
  });
});
