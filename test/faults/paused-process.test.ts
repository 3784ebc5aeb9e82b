import { setTimeout as delay } from 'node:timers/promises';
import Sqlite from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { pipeline } from '../../pipelines/online-retail-invoices.ts';
import { describeEachDialect, DIALECTS } from '../helpers/dialects.ts';
import { loseAppLock } from '../helpers/lose-app-lock.ts';
import { openFaultWorld, type FaultWorld } from '../helpers/open-fault-world.ts';
import { runCli, runCliWhenUnlocked, startCli, summaryOf, type CliProcess } from '../helpers/run-cli.ts';
import { waitForAppLock } from '../helpers/wait-for-app-lock.ts';
import { waitForLogLine } from '../helpers/wait-for-log-line.ts';

const DAY = '2010-12-01';
const INVOICES = 143;
const RUN = ['run', pipeline.name, '--date', DAY];

/**
 * A process stopped by SIGSTOP (a VM freeze, a stop-the-world pause) past its lease or its claims,
 * while another process takes its work over, then resumed by SIGCONT: it must not send what the
 * other process owns now. check-before-create against a destination without idempotency keys,
 * the strategy that depends on it; short leases, claims and timeouts, so a takeover comes within
 * seconds (the takeover waits the request's timeouts, the destination's settle delay and
 * IDEM_TAKEOVER_GRACE_MS after an expiry).
 */
function pausedWorldEnv(world: FaultWorld): Record<string, string> {
  world.sandbox.configure({ idempotencyKeys: false, latencyMs: 50 });
  return {
    ...world.env({ strategy: 'check-before-create', http: { concurrency: 2, connectTimeoutMs: 1000, headersTimeoutMs: 2000 } }),
    IDEM_LOCK_LEASE_MS: '3000',
    IDEM_CLAIM_TTL_MS: '3000',
    IDEM_TAKEOVER_GRACE_MS: '1000',
  };
}

/** Polls until `check` holds (every 20 ms, at most `ms`). @throws Error naming what was awaited. */
async function waitUntil(what: string, check: () => Promise<boolean>, ms = 30_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await delay(20);
  }
}

/** The references of pending items under a live claim of an `idem work` process. */
async function unsentHeldByWorker(world: FaultWorld): Promise<string[]> {
  return world.db.knex('post_ledger').where('claimed_by', 'like', 'worker %').whereNotNull('claim_expires_at').where({ status: 'pending' }).pluck('source_reference');
}

/**
 * SIGSTOPs `child` as the destination receives a look-up (`GET /invoices?reference=R`) for which
 * `when(R)` holds, before the destination answers it. @returns once the child is stopped.
 */
function stopOnLookUp(world: FaultWorld, child: CliProcess, when: (reference: string) => boolean): Promise<void> {
  return new Promise((resolve) => {
    world.onRequest = (request) => {
      if (request.method !== 'GET' || request.reference === null || !when(request.reference)) return;
      world.onRequest = undefined;
      child.child.kill('SIGSTOP');
      resolve();
    };
  });
}

/** References the destination holds other than exactly once. */
const notOnce = (world: FaultWorld): [string, number][] => Object.entries(world.sandbox.state.stats().byReference).filter(([, n]) => n !== 1);

describeEachDialect('a process paused past its lock or its claims sends nothing it no longer owns', (dialect) => {
  it.concurrent('idem run stopped mid-post until its lock is gone and a second run has finished: on SIGCONT it stops, exit 1 (SQLite: its lease taken) or 75 (a server: its lock session ended, a lost connection), and leaves job_runs to the live attempt', async ({ task, expect }) => {
    const world = await openFaultWorld(dialect, task.name);
    try {
      const env = pausedWorldEnv(world);
      const first = startCli(RUN, env);
      // Stopped mid-post, just after a look-up went out for an invoice not created yet: the
      // answer ("absent") reaches the run only once it resumes, and its create would follow.
      await stopOnLookUp(world, first, () => world.sandbox.state.records().length >= 10);
      try {
        // SQLite: the lease runs out while the run is stopped. A server keeps a stopped client's
        // session, so the lock goes the way a server loses it: its session is ended.
        if (dialect !== 'sqlite') expect(await loseAppLock(dialect, world.db, world.testDb.url, pipeline.name, first.child.pid!)).toBe(1);
        expect(await waitForAppLock(world.db, pipeline.name, 15_000)).toBe(true);
        const second = await runCli(RUN, env);
        expect(second.code, second.stdout + second.stderr).toBe(0);
        // It wrote the end itself: nobody else may have.
        expect(summaryOf(second).msg).toBe('run completed');
      } finally {
        first.child.kill('SIGCONT');
      }
      const resumed = await first.done;

      // Each of these is its own finding: all are reported.
      expect.soft(notOnce(world)).toEqual([]);
      expect.soft(world.sandbox.state.records()).toHaveLength(INVOICES);
      expect.soft(resumed.code, resumed.stdout + resumed.stderr).toBe(dialect === 'sqlite' ? 1 : 75);
      expect.soft(summaryOf(resumed).msg).toMatch(/app lock "idem:online-retail-invoices" was lost/);
      // The resumed attempt wrote nothing to job_runs; the second recorded that the first never ended.
      expect.soft(await world.db.knex('job_runs').select('status', 'attempts', 'error')).toEqual([{ status: 'completed', attempts: 2, error: null }]);
      expect.soft(await world.db.knex('job_runs').select('died_attempts')).toEqual([{ died_attempts: 1 }]);
    } finally {
      await world.close();
    }
  });

  it.concurrent('idem run that lost its lock while another attempt runs writes nothing to job_runs: the live attempt completes it and says so', async ({ task }) => {
    const world = await openFaultWorld(dialect, task.name);
    try {
      // Keys honoured: nothing is created twice here; this is about job_runs alone.
      world.sandbox.configure({ latencyMs: 20 });
      const env = { ...world.env({ http: { concurrency: 2 } }), IDEM_LOCK_LEASE_MS: '3000' };
      const first = startCli(RUN, env);
      await waitUntil('the first run to post', async () => world.sandbox.state.records().length >= 10);
      first.child.kill('SIGSTOP');
      let second;
      try {
        if (dialect !== 'sqlite') expect(await loseAppLock(dialect, world.db, world.testDb.url, pipeline.name, first.child.pid!)).toBe(1);
        expect(await waitForAppLock(world.db, pipeline.name, 15_000)).toBe(true);
        // The second attempt posts everything, then waits before it completes the run key.
        second = startCli(RUN, { ...env, IDEM_FAILPOINTS: 'before-complete=sleep:8000' });
        await waitUntil('the second attempt to have posted every item', async () => {
          const [attempt] = await world.db.knex('job_runs').select('attempts', 'stage');
          const [{ open }] = (await world.db.knex('post_ledger').whereIn('status', ['pending', 'sending']).count({ open: '*' })) as [{ open: number | string }];
          return attempt?.attempts === 2 && attempt.stage === 'post' && Number(open) === 0;
        });
      } finally {
        first.child.kill('SIGCONT');
      }
      // The first resumes while the second is still running.
      const resumed = await first.done;
      const finished = await second.done;

      expect(resumed.code, resumed.stdout + resumed.stderr).toBe(dialect === 'sqlite' ? 1 : 75);
      expect(finished.code, finished.stdout + finished.stderr).toBe(0);
      expect(summaryOf(finished).msg).toBe('run completed');
      expect(await world.db.knex('job_runs').select('status', 'attempts', 'error')).toEqual([{ status: 'completed', attempts: 2, error: null }]);
      expect(notOnce(world)).toEqual([]);
    } finally {
      await world.close();
    }
  });

  it.concurrent('idem work stopped past its claims while the run takes them over: on SIGCONT it sends none of them', async ({ task }) => {
    const world = await openFaultWorld(dialect, task.name);
    try {
      const env = pausedWorldEnv(world);
      const worker = startCli(['work', pipeline.name, '--run-key', DAY, '--poll-ms', '20', '--wait-ms', '60000'], env);
      const run = startCli(RUN, env);
      // The worker's own items not created yet, more than its 2 requests in flight: the next
      // look-up of one of them is the worker's.
      let held = new Set<string>();
      await waitUntil('the worker to hold unsent claimed items', async () => {
        held = new Set((await unsentHeldByWorker(world)).filter((reference) => world.sandbox.state.countByReference(reference) === 0));
        return world.sandbox.state.records().length >= 4 && held.size > 2;
      });
      await stopOnLookUp(world, worker, (reference) => held.has(reference));
      let finished;
      try {
        // The run waits for the worker's claims to lapse (and the takeover grace), then posts them.
        finished = await run.done;
      } finally {
        worker.child.kill('SIGCONT');
      }
      const resumed = await worker.done;

      expect(finished.code, finished.stdout + finished.stderr).toBe(0);
      expect(notOnce(world)).toEqual([]);
      expect(world.sandbox.state.records()).toHaveLength(INVOICES);
      expect(resumed.code, resumed.stdout + resumed.stderr).toBe(0);
      expect(summaryOf(resumed).counts.post['sandbox-accounting'].lost).toBeGreaterThan(0);
      expect(await world.db.knex('job_runs').select('status', 'attempts')).toEqual([{ status: 'completed', attempts: 1 }]);
    } finally {
      await world.close();
    }
  });
});

describe.skipIf(!DIALECTS.includes('sqlite'))('sqlite: a run stopped inside a write transaction', () => {
  it('a second run exits 75 (retry later), not 1; the stopped run completes once resumed', async ({ task }) => {
    const world = await openFaultWorld('sqlite', task.name);
    const probe = new Sqlite(world.testDb.url.slice('sqlite:'.length), { timeout: 0 });
    try {
      // The default lease: the stopped run keeps its lock; only SQLite's write lock is in the way.
      const env = { ...world.env(), IDEM_LOCK_LEASE_MS: '30000' };
      // The upsert's transaction is open while the failpoint sleeps: the run holds the write lock.
      const first = startCli(RUN, { ...env, IDEM_FAILPOINTS: 'mid-upsert=sleep:8000' });
      // Held for 500 ms on end: the upsert's sleeping transaction, not the brief one that writes
      // the app lock's lease row (stopping the run inside that one tests the lease, not busy).
      let busySince: number | undefined;
      await waitUntil('the first run to hold the write lock', async () => {
        try {
          probe.exec('begin immediate; rollback');
          busySince = undefined;
          return false;
        } catch (error) {
          if ((error as { code?: string }).code !== 'SQLITE_BUSY') throw error;
          busySince ??= Date.now();
          return Date.now() - busySince >= 500;
        }
      });
      first.child.kill('SIGSTOP');
      let second;
      try {
        second = await runCli(RUN, env);
      } finally {
        first.child.kill('SIGCONT');
      }
      expect(second.code, second.stdout + second.stderr).toBe(75);
      expect(summaryOf(second)).toMatchObject({ outcome: 'lock-held', exitCode: 75 });
      expect(summaryOf(second).msg).toMatch(/SQLITE_BUSY/);
      const resumed = await first.done;
      expect(resumed.code, resumed.stdout + resumed.stderr).toBe(0);
      expect(notOnce(world)).toEqual([]);
      expect(world.sandbox.state.records()).toHaveLength(INVOICES);
    } finally {
      probe.close();
      await world.close();
    }
  });

  it('a run that holds its lock and meets the database locked by another process past the busy timeout exits 75, its stage uncommitted; a rerun finishes', async ({ task }) => {
    const world = await openFaultWorld('sqlite', task.name);
    const other = new Sqlite(world.testDb.url.slice('sqlite:'.length), { timeout: 0 });
    try {
      // The run stages, then sleeps before its upsert: then another process takes the write lock
      // and keeps it (an `idem work` or a shell stopped inside a write transaction).
      const run = startCli(RUN, { ...world.env(), IDEM_FAILPOINTS: 'after-stage=sleep:1500' });
      await waitForLogLine(run, (line) => line.stage === 'stage');
      other.exec('begin immediate');
      const cut = await run.done;
      other.exec('rollback');
      expect(cut.code, cut.stdout + cut.stderr).toBe(75);
      expect(summaryOf(cut).msg).toMatch(/^run failed: another session kept the database locked through every retry during upsert \(on SQLite, a process stopped or stuck inside a write transaction\); a plain rerun once it lets go resumes \(.*database is locked\)$/);
      expect(summaryOf(cut).err).toMatchObject({ code: 'DATABASE_BUSY' });
      expect(await world.db.knex(pipeline.tables.target).count({ n: '*' })).toEqual([{ n: 0 }]);
      await waitForAppLock(world.db, pipeline.name);
      const rerun = await runCliWhenUnlocked(RUN, world.env());
      expect(rerun.code, rerun.stdout + rerun.stderr).toBe(0);
      expect(await world.db.knex('job_runs').select('status', 'attempts')).toEqual([{ status: 'completed', attempts: 2 }]);
      expect(notOnce(world)).toEqual([]);
      expect(world.sandbox.state.records()).toHaveLength(INVOICES);
    } finally {
      other.close();
      await world.close();
    }
  });
});
