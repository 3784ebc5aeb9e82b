import { afterEach, beforeEach, expect, it } from 'vitest';
import { pipeline } from '../../pipelines/online-retail-invoices.ts';
import { describeEachDialect } from '../helpers/dialects.ts';
import { loseAppLock } from '../helpers/lose-app-lock.ts';
import { openFaultWorld, type FaultWorld } from '../helpers/open-fault-world.ts';
import { readAftermath } from '../helpers/read-aftermath.ts';
import { runCliWhenUnlocked, startCli, summaryOf } from '../helpers/run-cli.ts';
import { waitForAppLock } from '../helpers/wait-for-app-lock.ts';

const DAY = '2010-12-01';
const RUN = ['run', pipeline.name, '--date', DAY];

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

  it('the run notices before its next durable step, exits 1 naming the lock, and writes nothing more, job_runs included; a rerun completes it and records the attempt that died', async () => {
    const run = startCli(RUN, { ...env, IDEM_FAILPOINTS: 'after-stage=sleep:3000' });
    // The stage log line comes just before the after-stage sleep: the lock is held and idle.
    await new Promise<void>((resolve, reject) => {
      let seen = '';
      run.child.stderr!.on('data', (chunk: Buffer) => {
        seen += chunk.toString();
        if (seen.includes('"stage":"stage"')) resolve();
      });
      run.child.on('close', () => reject(new Error(`the run ended before staging\n${seen}`)));
    });
    expect(await loseAppLock(dialect, db, world.testDb.url, pipeline.name, run.child.pid!)).toBe(1);

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
