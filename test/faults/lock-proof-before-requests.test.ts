import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { pipeline } from '../../pipelines/online-retail-invoices.ts';
import { SEND_BATCH_MAX } from '../../src/post/proved-send-batches.ts';
import { describeEachDialect, DIALECTS, type TestDialect } from '../helpers/dialects.ts';
import { loseAppLock } from '../helpers/lose-app-lock.ts';
import { openFaultWorld, type FaultWorld } from '../helpers/open-fault-world.ts';
import { PGBOUNCER_BIN, startPgBouncer } from '../helpers/pgbouncer.ts';
import { startCli, summaryOf } from '../helpers/run-cli.ts';

const DAY = '2010-12-01';
const RUN = ['run', pipeline.name, '--date', DAY];
const INVOICES = 143;
/** POSTs the destination has received when the lock is taken away: the run is mid-post. */
const KILL_AT_POST = 10;

/**
 * Runs the day against a destination that answers in 20 ms, 8 requests in flight (about 400
 * requests a second, so a run that learns of the loss only when its lock's connection reports
 * it, 0.4-1.2 s later in issue 28's trials, sends far more than a batch), takes the app lock
 * away as the destination receives the run's 10th create, and counts the creates it receives
 * after that. A lease long enough that only a round trip tells the run (SQLite) it is gone.
 * @returns the creates received after the loss, and how the run ended.
 */
async function loseLockMidPost(world: FaultWorld, dialect: TestDialect, databaseUrl: string) {
  world.sandbox.configure({ latencyMs: 20 });
  const env = { ...world.env({ http: { concurrency: 8 } }), DATABASE_URL: databaseUrl, IDEM_LOCK_LEASE_MS: '30000' };
  const run = startCli(RUN, env);
  let posts = 0;
  let afterLoss = -1;
  const lost = new Promise<number>((resolve, reject) => {
    world.onRequest = (request) => {
      if (request.method !== 'POST') return;
      posts += 1;
      if (afterLoss >= 0) afterLoss += 1;
      if (posts !== KILL_AT_POST) return;
      loseAppLock(dialect, world.db, world.testDb.url, pipeline.name, run.child.pid!).then((ended) => {
        // Counted from the moment the server has ended the session (or the lease row is gone).
        afterLoss = 0;
        resolve(ended);
      }, reject);
    };
  });
  expect(await lost).toBe(1);
  const ended = await run.done;
  world.onRequest = undefined;
  return { afterLoss, ended };
}

/** What every variant asserts: the bound, the run stopped, and job_runs left to the next attempt. */
async function expectStoppedWithinABatch(world: FaultWorld, dialect: TestDialect, { afterLoss, ended }: Awaited<ReturnType<typeof loseLockMidPost>>) {
  expect(afterLoss, ended.stderr).toBeLessThanOrEqual(SEND_BATCH_MAX);
  expect(world.sandbox.state.records().length).toBeLessThan(INVOICES);
  // A server's ended session is a lost connection (retry later); SQLite's taken lease a failure.
  expect(ended.code, ended.stderr).toBe(dialect === 'sqlite' ? 1 : 75);
  expect(summaryOf(ended).msg).toMatch(/app lock "idem:online-retail-invoices" was lost/);
  expect(await world.db.knex('job_runs').select('status', 'attempts')).toEqual([{ status: 'started', attempts: 1 }]);
}

describeEachDialect('the app lock is proved by a round trip before every batch of requests (issue 28 §7)', (dialect) => {
  it.concurrent(`after the lock's session is ended (pg_terminate_backend, KILL; SQLite: its lease taken) mid-post, at most ${SEND_BATCH_MAX} more requests reach the destination, and the run stops`, async ({ task }) => {
    const world = await openFaultWorld(dialect, task.name);
    try {
      await expectStoppedWithinABatch(world, dialect, await loseLockMidPost(world, dialect, world.testDb.url));
    } finally {
      await world.close();
    }
  });
});

const noBouncer = !DIALECTS.includes('postgres') ? 'TEST_DIALECTS leaves postgres out' : !existsSync(PGBOUNCER_BIN) ? `no PgBouncer at ${PGBOUNCER_BIN}` : undefined;

describe.skipIf(noBouncer !== undefined)(`postgres through PgBouncer in transaction mode: the lock proved before every batch${noBouncer ? ` (skipped: ${noBouncer})` : ''}`, () => {
  it(`after the server connection holding the lock's transaction is terminated mid-post, at most ${SEND_BATCH_MAX} more requests reach the destination`, async ({ task }) => {
    const bouncer = await startPgBouncer('transaction', 3);
    const world = await openFaultWorld('postgres', task.name);
    try {
      await expectStoppedWithinABatch(world, 'postgres', await loseLockMidPost(world, 'postgres', bouncer.urlFor(world.testDb.url)));
    } finally {
      await world.close();
      await bouncer.stop();
    }
  });
});
