import { afterAll, beforeAll, expect, it } from 'vitest';
import { pipeline } from '../../pipelines/online-retail-invoices.ts';
import { describeEachDialect } from '../helpers/dialects.ts';
import { openFaultWorld, type FaultWorld } from '../helpers/open-fault-world.ts';
import { readAftermath, type Aftermath } from '../helpers/read-aftermath.ts';
import { runCli, runCliWhenUnlocked, startCli } from '../helpers/run-cli.ts';
import { waitForAppLock } from '../helpers/wait-for-app-lock.ts';

const DAY = '2010-12-01';
const INVOICES = 143;
const RUN = ['run', pipeline.name, '--date', DAY];

// Every stage boundary a crash can hit after job_runs says "started".
const FAILPOINTS = ['after-extract', 'mid-stage', 'after-stage', 'mid-upsert', 'after-upsert', 'before-post', 'before-complete'] as const;

/** Reruns after a crash (as the next night's schedule would) and reads what that left. */
async function rerun(world: FaultWorld): Promise<Aftermath> {
  // After a SIGKILL on SQLite the lock is free only once the dead run's 1 s lease expires.
  await waitForAppLock(world.db, pipeline.name);
  const result = await runCliWhenUnlocked(RUN, world.env());
  expect(result.code, result.stdout + result.stderr).toBe(0);
  return readAftermath(world.db, world.sandbox);
}

// Each case gets its own database and sandbox, so the cases run concurrently (the CLI's child
// processes are the cost, and one at a time leaves CPUs idle).
describeEachDialect('SIGKILL at every stage boundary, then a rerun, ends as a clean run does', (dialect) => {
  let clean: Aftermath;
  let reference: FaultWorld;

  beforeAll(async () => {
    reference = await openFaultWorld(dialect, 'kill-matrix-reference');
    expect((await runCli(RUN, reference.env())).code).toBe(0);
    clean = await readAftermath(reference.db, reference.sandbox);
    expect(clean).toMatchObject({ remoteRecords: INVOICES, notOnceRemotely: [], stagingRows: 0, jobRuns: [{ runKey: DAY, status: 'completed', attempts: 1 }], lockFree: true });
    expect(clean.rows).toHaveLength(INVOICES);
  });

  afterAll(() => reference?.close());

  /** The clean run's aftermath (rows compared without id, created_at and updated_at), reached in two attempts. */
  const afterRerun = (): Aftermath => ({ ...clean, jobRuns: [{ runKey: DAY, status: 'completed', attempts: 2 }] });

  it.concurrent.each(FAILPOINTS)('killed at %s', async (point) => {
    const world = await openFaultWorld(dialect, `kill-matrix-${point}`);
    try {
      const batch = point === 'mid-stage' ? ['--batch-rows', '40'] : [];
      const killed = await runCli([...RUN, ...batch], { ...world.env(), IDEM_FAILPOINTS: `${point}=kill` });
      expect(killed.signal).toBe('SIGKILL');
      expect(await world.db.knex('job_runs').select('status', 'attempts')).toEqual([{ status: 'started', attempts: 1 }]);
      // Nothing is posted before the post stage; before-complete comes after it.
      expect(world.sandbox.state.records()).toHaveLength(point === 'before-complete' ? INVOICES : 0);
      expect(await rerun(world)).toEqual(afterRerun());
    } finally {
      await world.close();
    }
  });

  it.concurrent.each([1, 60, 143])('killed from outside once POST %i reached the destination', async (n) => {
    const world = await openFaultWorld(dialect, `kill-matrix-post-${n}`);
    try {
      const child = startCli(RUN, world.env());
      let posts = 0;
      world.onRequest = (request) => {
        if (request.method === 'POST' && ++posts === n) child.child.kill('SIGKILL');
      };
      const killed = await child.done;
      world.onRequest = undefined;
      expect(killed.signal).toBe('SIGKILL');
      expect(world.sandbox.state.records().length).toBeGreaterThanOrEqual(n);
      expect(await rerun(world)).toEqual(afterRerun());
    } finally {
      await world.close();
    }
  });
});
