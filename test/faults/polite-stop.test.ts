import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { pipeline } from '../../pipelines/online-retail-invoices.ts';
import type { FailpointName } from '../../src/runner/failpoints.ts';
import { describeEachDialect, describeOneDialect } from '../helpers/dialects.ts';
import { openFaultWorld, type FaultWorld } from '../helpers/open-fault-world.ts';
import { readAftermath, type Aftermath } from '../helpers/read-aftermath.ts';
import { runCli, runCliWhenUnlocked, startCli, type CliProcess, type CliResult } from '../helpers/run-cli.ts';
import { loadConfig } from '../../src/config/load-config.ts';
import { runView } from '../../src/ui/run-view.ts';
import { waitForAppLock } from '../helpers/wait-for-app-lock.ts';
import { waitForLogLine } from '../helpers/wait-for-log-line.ts';

const DAY = '2010-12-01';
const INVOICES = 143;
const RUN = ['run', pipeline.name, '--date', DAY];
/** SQLite's default lease: a stopped run that kept its lease would make the immediate rerun exit 75. */
const LEASE = { IDEM_LOCK_LEASE_MS: '30000' };

/**
 * Each stage boundary a polite stop can meet, with what the stopped attempt has committed by then:
 * the upsert (target rows, ledger items) and the posts. A stop during the upsert (`mid-upsert`,
 * just before its commit) lets the transaction commit and stops right after it.
 */
const STOPS: readonly { point: FailpointName; upserted: boolean; posted: number }[] = [
  { point: 'before-stage', upserted: false, posted: 0 },
  { point: 'mid-stage', upserted: false, posted: 0 },
  { point: 'after-extract', upserted: false, posted: 0 },
  { point: 'after-stage', upserted: false, posted: 0 },
  { point: 'mid-upsert', upserted: true, posted: 0 },
  { point: 'after-upsert', upserted: true, posted: 0 },
  { point: 'before-post', upserted: true, posted: 0 },
  { point: 'before-complete', upserted: true, posted: INVOICES },
];

/** A file whose creation releases a `wait:<file>` failpoint. */
function releaseFile(): string {
  return path.join(mkdtempSync(path.join(tmpdir(), 'idem-stop-')), 'release');
}

/** Starts the run held at `point` and resolves once it is there (its failpoint logs that it waits). */
async function startHeldAt(point: FailpointName, env: Record<string, string>, release: string, extra: readonly string[] = []): Promise<CliProcess> {
  const run = startCli([...RUN, ...extra], { ...env, IDEM_FAILPOINTS: `${point}=wait:${release}` });
  await waitForLogLine(run, (line) => line.failpoint === point);
  return run;
}

/** Sends `signal` and resolves once the run has logged that it stops politely. */
async function askToStop(run: CliProcess, signal: NodeJS.Signals): Promise<void> {
  const heard = waitForLogLine(run, (line) => line.stage === 'stop' && line.signal === signal);
  run.child.kill(signal);
  await heard;
}

/** The one `job_runs` row, as the assertions read it. */
async function jobRun(world: FaultWorld): Promise<{ status: string; attempts: number; diedAttempts: number; error: string | null }> {
  const rows = (await world.db.knex('job_runs').select('status', 'attempts', 'died_attempts', 'error')) as { status: string; attempts: number; died_attempts: number; error: string | null }[];
  expect(rows).toHaveLength(1);
  const [row] = rows;
  return { status: row!.status, attempts: Number(row!.attempts), diedAttempts: Number(row!.died_attempts), error: row!.error };
}

/** Ledger items by status. */
async function ledger(world: FaultWorld): Promise<Record<string, number>> {
  const rows = (await world.db.knex('post_ledger').select('status').count({ n: '*' }).groupBy('status')) as { status: string; n: number | string }[];
  return Object.fromEntries(rows.map((r) => [r.status, Number(r.n)]));
}

/** What a politely stopped run printed and exited with. */
function expectStopped(result: CliResult, signal: NodeJS.Signals): void {
  expect(result.code, result.stderr).toBe(75);
  expect(result.signal).toBeNull();
  expect(result.summary).toMatchObject({ stage: 'summary', outcome: 'stopped', exitCode: 75 });
  expect(result.summary!.msg).toMatch(new RegExp(`^stopped by ${signal}: the work in flight finished`));
}

// Each case has its own database and sandbox, so the cases run concurrently.
describeEachDialect('SIGTERM at every stage boundary: a polite stop, then a plain rerun', (dialect) => {
  let clean: Aftermath;
  let reference: FaultWorld;

  beforeAll(async () => {
    reference = await openFaultWorld(dialect, 'stop-reference');
    expect((await runCli(RUN, reference.env())).code).toBe(0);
    clean = await readAftermath(reference.db, reference.sandbox);
    expect(clean).toMatchObject({ remoteRecords: INVOICES, notOnceRemotely: [], stagingRows: 0, lockFree: true });
  });

  afterAll(() => reference?.close());

  it.concurrent.each(STOPS)('held at $point: exit 75, job_runs stopped with the signal, lock free at once; the rerun completes, nothing posted twice', async ({ point, upserted, posted }) => {
    const world = await openFaultWorld(dialect, `stop-${point}`);
    try {
      const env = { ...world.env(), ...LEASE };
      const release = releaseFile();
      const run = await startHeldAt(point, env, release, point === 'mid-stage' ? ['--batch-rows', '40'] : []);
      await askToStop(run, 'SIGTERM');
      // The work under way goes on to the next boundary, and the run stops there.
      writeFileSync(release, '');
      const stopped = await run.done;
      expectStopped(stopped, 'SIGTERM');
      expect(await jobRun(world)).toEqual({ status: 'stopped', attempts: 1, diedAttempts: 0, error: expect.stringMatching(/^stopped by SIGTERM: /) });
      // The summary line's counts say how far it got: the upsert committed whole, or not at all.
      expect((stopped.summary as Record<string, any>).counts.upsert === undefined).toBe(!upserted);
      expect(Number(((await world.db.knex(pipeline.tables.target).count({ n: '*' })) as [{ n: number | string }])[0].n)).toBe(upserted ? INVOICES : 0);
      expect(await ledger(world)).toEqual(upserted ? { [posted ? 'posted' : 'pending']: INVOICES } : {});
      expect(world.sandbox.state.stats().postRequests).toBe(posted);

      // At once, without waiting for any lease: the lock was released.
      const rerun = await runCli(RUN, env);
      expect(rerun.code, rerun.stderr).toBe(0);
      expect(await readAftermath(world.db, world.sandbox)).toEqual({ ...clean, jobRuns: [{ runKey: DAY, status: 'completed', attempts: 2 }] });
      expect(world.sandbox.state.stats().postRequests).toBe(INVOICES);
    } finally {
      await world.close();
    }
  });

  it.concurrent('a second SIGTERM during the upsert stops at once: exit 75, the transaction rolled back whole, the rerun as after a kill', async () => {
    const world = await openFaultWorld(dialect, 'stop-twice');
    try {
      const run = await startHeldAt('mid-upsert', world.env(), releaseFile());
      await askToStop(run, 'SIGTERM');
      run.child.kill('SIGTERM');
      const stopped = await run.done;
      expect(stopped.code, stopped.stderr).toBe(75);
      expect(stopped.summary).toMatchObject({ outcome: 'stopped', exitCode: 75, atOnce: true, signal: 'SIGTERM' });
      // As after a kill: the attempt's end is not recorded, the open transaction committed nothing.
      expect(await jobRun(world)).toMatchObject({ status: 'started', attempts: 1 });
      expect(Number(((await world.db.knex(pipeline.tables.target).count({ n: '*' })) as [{ n: number | string }])[0].n)).toBe(0);
      expect(await ledger(world)).toEqual({});
      await waitForAppLock(world.db, pipeline.name);
      const rerun = await runCliWhenUnlocked(RUN, world.env());
      expect(rerun.code, rerun.stderr).toBe(0);
      expect(await readAftermath(world.db, world.sandbox)).toEqual({ ...clean, jobRuns: [{ runKey: DAY, status: 'completed', attempts: 2 }] });
      expect(await jobRun(world)).toMatchObject({ diedAttempts: 1 });
    } finally {
      await world.close();
    }
  });
});

describeOneDialect('a polite stop: signals, requests in flight and the grace', (dialect) => {
  let world: FaultWorld;

  beforeAll(async () => {
    world = await openFaultWorld(dialect, 'stop-signals');
  });

  afterAll(() => world?.close());

  /** Empties the world's tables and the sandbox between cases (they share one world, one at a time). */
  async function reset(): Promise<void> {
    for (const table of ['post_ledger', 'job_runs', 'app_locks', 'quarantine', pipeline.tables.target, pipeline.tables.staging]) await world.db.knex(table).delete();
    world.sandbox.state.clear();
    world.sandbox.configure({ latencyMs: 0 });
  }

  it('SIGINT (Ctrl-C) once: a polite stop like SIGTERM, the signal named in job_runs', async () => {
    await reset();
    const release = releaseFile();
    const env = { ...world.env(), ...LEASE };
    const run = await startHeldAt('after-stage', env, release);
    await askToStop(run, 'SIGINT');
    writeFileSync(release, '');
    expectStopped(await run.done, 'SIGINT');
    expect(await jobRun(world)).toMatchObject({ status: 'stopped', error: expect.stringMatching(/^stopped by SIGINT: /) });
    const status = await runCli(['status', pipeline.name], env);
    expect(status.stdout).toMatch(/2010-12-01 +stopped +1 /);
    expect(status.stdout).toContain(`${pipeline.name} 2010-12-01 stopped: stopped by SIGINT: the work in flight finished`);
    // The operator page's run view says so too, with the reason.
    const ui = { db: world.db, config: loadConfig({ DATABASE_URL: world.testDb.url }), pipelines: new Map(), now: () => Date.now(), staleMs: 30_000 };
    const page = String(await runView(ui, { jobName: pipeline.name, runKey: DAY, attemptsPage: 1, quarantinePage: 1, ledgerPage: 1 }));
    // The attempt's row: its badge, its words and its reason.
    expect(page).toMatch(/<tr class="attempt" data-attempt="1" data-status="stopped">/);
    expect(page).toContain('stopped by a signal, at a stage boundary; a rerun resumes<pre class="attempt-error">stopped by SIGINT: ');
    expect((await runCli(RUN, env)).code).toBe(0);
  });

  it('a request in flight to a slow destination finishes within the grace and is recorded posted; the rerun sends only the rest', async () => {
    await reset();
    world.sandbox.configure({ latencyMs: 1500 });
    const env = { ...world.env({ http: { concurrency: 1 } }), ...LEASE };
    const run = startCli(RUN, env);
    let reference: string | null = null;
    world.onRequest = (request) => {
      if (request.method !== 'POST' || reference !== null) return;
      reference = request.reference;
      run.child.kill('SIGTERM');
    };
    const stopped = await run.done;
    world.onRequest = undefined;
    expectStopped(stopped, 'SIGTERM');
    expect((stopped.summary as Record<string, any>).counts.post['sandbox-accounting']).toMatchObject({ posted: 1, created: 1 });
    expect(world.sandbox.state.stats().postRequests).toBe(1);
    const items = (await world.db.knex('post_ledger').select('source_reference', 'status', 'claim_expires_at')) as { source_reference: string; status: string; claim_expires_at: unknown }[];
    expect(items.filter((i) => i.status === 'posted').map((i) => i.source_reference)).toEqual([reference]);
    // The items it had claimed and not sent are free for the rerun at once.
    expect(items.filter((i) => i.status === 'pending' && i.claim_expires_at !== null)).toEqual([]);

    world.sandbox.configure({ latencyMs: 0 });
    const rerun = await runCli(RUN, env);
    expect(rerun.code, rerun.stderr).toBe(0);
    const { postRequests, records, byReference } = world.sandbox.state.stats();
    expect({ postRequests, records }).toEqual({ postRequests: INVOICES, records: INVOICES });
    expect(byReference[reference!]).toBe(1);
  });

  it('a request still in flight when the grace ends: stopped at once (exit 75), the rerun as safe as after a kill', async () => {
    await reset();
    world.sandbox.configure({ latencyMs: 4000 });
    const env = { ...world.env({ http: { concurrency: 1 } }), IDEM_STOP_GRACE_MS: '300' };
    const run = startCli(RUN, env);
    world.onRequest = (request) => {
      if (request.method !== 'POST') return;
      world.onRequest = undefined;
      run.child.kill('SIGTERM');
    };
    const stopped = await run.done;
    expect(stopped.code, stopped.stderr).toBe(75);
    expect(stopped.summary).toMatchObject({ outcome: 'stopped', exitCode: 75, atOnce: true, graceMs: 300 });
    expect(await jobRun(world)).toMatchObject({ status: 'started', attempts: 1 });

    world.sandbox.configure({ latencyMs: 0 });
    await waitForAppLock(world.db, pipeline.name);
    const rerun = await runCliWhenUnlocked(RUN, env);
    expect(rerun.code, rerun.stderr).toBe(0);
    const { records, byReference } = world.sandbox.state.stats();
    expect(records).toBe(INVOICES);
    expect(Object.values(byReference).every((n) => n === 1)).toBe(true);
    // The cut-off attempt is counted as died; a rerun while the destination still works on the
    // cut-off request (its key in flight) may itself end 75 first, as after a kill.
    expect(await jobRun(world)).toMatchObject({ status: 'completed', diedAttempts: 1 });
  });
});
