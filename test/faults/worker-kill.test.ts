import { setTimeout as delay } from 'node:timers/promises';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { pipeline } from '../../pipelines/online-retail-invoices.ts';
import { describeEachDialect } from '../helpers/dialects.ts';
import { openFaultWorld, type FaultWorld } from '../helpers/open-fault-world.ts';
import { runCli, startCli, summaryOf } from '../helpers/run-cli.ts';
import { stopWorkerOnItsCreate } from '../helpers/stop-worker-on-its-create.ts';

const DAY = '2010-12-01';
const INVOICES = 143;
const RUN = ['run', pipeline.name, '--date', DAY];
/** A short claim TTL, so the killed worker's claims lapse within a second. */
const CLAIM_TTL_MS = '1000';

/** Polls until `check` holds (every 20 ms, at most `ms`). @throws Error naming what was awaited. */
async function waitUntil(what: string, check: () => Promise<boolean>, ms = 30_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await delay(20);
  }
}

describeEachDialect('a post worker SIGKILLed mid-batch', (dialect) => {
  let world: FaultWorld;

  beforeEach(async (context) => {
    world = await openFaultWorld(dialect, context.task.name);
    // 200 ms a request at concurrency 2: the worker is mid-batch, requests in flight, for seconds.
    world.sandbox.configure({ latencyMs: 200 });
  });

  afterEach(async () => {
    await world?.close();
  });

  const count = async (where: (q: any) => any): Promise<number> =>
    Number(((await where(world.db.knex('post_ledger')).count({ n: '*' })) as { n: number | string }[])[0]!.n);
  /** Items the worker holds under a live claim, with `status` (pending or sending). */
  const heldByWorker = (status: string): Promise<number> =>
    count((q) => q.where('claimed_by', 'like', 'worker %').whereNotNull('claim_expires_at').where({ status }));

  /**
   * Starts a worker and the run, and SIGKILLs the worker mid-batch, with requests in flight, once
   * the destination has records (`inFlight`: the ledger status of an item in flight, pending under
   * idempotency-key, sending under mark-before-send). Under mark-before-send the worker is stopped
   * as the destination receives one of its creates (`stopWorkerOnItsCreate`), so that item is
   * still `sending` when it dies. Under idempotency-key it is stopped (SIGSTOP) once the ledger
   * shows it holding pending items, and the ledger is read again while it is stopped; an outcome
   * it had already written may still land, which that test allows: it asserts every invoice
   * once, whoever posted it.
   */
  async function killWorkerMidBatch(env: Record<string, string>, inFlight: 'pending' | 'sending') {
    const worker = startCli(['work', pipeline.name, '--run-key', DAY, '--poll-ms', '20', '--wait-ms', '60000'], env);
    const stopped = inFlight === 'sending' ? stopWorkerOnItsCreate(world, worker, 4) : undefined;
    const run = startCli(RUN, env);
    if (stopped) await stopped;
    else {
      await waitUntil('the worker to hold claims mid-batch', async () => {
        if (world.sandbox.state.records().length < 4 || (await heldByWorker(inFlight)) === 0) return false;
        worker.child.kill('SIGSTOP');
        if ((await heldByWorker(inFlight)) > 0) return true;
        worker.child.kill('SIGCONT');
        return false;
      });
    }
    worker.child.kill('SIGKILL');
    const killed = await worker.done;
    expect(killed.signal).toBe('SIGKILL');
    return run.done;
  }

  it('idempotency-key: its claims lapse, the run reclaims and resends them under the same key; every invoice once', async () => {
    const env = { ...world.env({ http: { concurrency: 2 } }), IDEM_CLAIM_TTL_MS: CLAIM_TTL_MS };
    const run = await killWorkerMidBatch(env, 'pending');
    expect(run.code, run.stdout + run.stderr).toBe(0);
    // The run posted more than its own first share: it took over what the dead worker held.
    expect(summaryOf(run).counts.post['sandbox-accounting'].posted).toBeGreaterThan(0);
    const { byReference, records } = world.sandbox.state.stats();
    expect(records).toBe(INVOICES);
    expect(Object.entries(byReference).filter(([, n]) => n !== 1)).toEqual([]);
    expect(await count((q) => q.whereNot({ status: 'posted' }))).toBe(0);
    expect(await world.db.knex('job_runs').select('status', 'attempts')).toEqual([{ status: 'completed', attempts: 1 }]);
  });

  it('mark-before-send: the items it was sending go to review, never resent; idem review resolves them', async () => {
    world.sandbox.configure({ idempotencyKeys: false });
    const env = { ...world.env({ strategy: 'mark-before-send', http: { concurrency: 2 } }), IDEM_CLAIM_TTL_MS: CLAIM_TTL_MS };
    const run = await killWorkerMidBatch(env, 'sending');
    expect(run.code, run.stdout + run.stderr).toBe(3);
    const inReview = (await world.db.knex('post_ledger').where({ status: 'review' }).orderBy('id')) as { source_reference: string; claimed_by: string }[];
    // The worker had at most 2 requests in flight (its concurrency), and at least the one seen `sending`.
    expect(inReview.length).toBeGreaterThanOrEqual(1);
    expect(inReview.length).toBeLessThanOrEqual(2);
    for (const item of inReview) expect(item.claimed_by).toMatch(/^worker /);
    expect(Object.values(world.sandbox.state.stats().byReference).every((n) => n <= 1)).toBe(true);
    expect(await world.db.knex('job_runs').select('status', 'attempts')).toEqual([{ status: 'needs_review', attempts: 1 }]);

    // The operator checks each at the destination, as `idem review` says.
    for (const item of inReview) {
      const there = world.sandbox.state.recordsByReference(item.source_reference)[0];
      const args = there ? ['--mark-posted', item.source_reference, '--remote-ref', there.id] : ['--retry', item.source_reference];
      expect((await runCli(['review', pipeline.name, ...args], env)).code).toBe(0);
    }
    const last = await runCli(RUN, env);
    expect(last.code, last.stdout + last.stderr).toBe(0);
    expect(await world.db.knex('job_runs').select('status')).toEqual([{ status: 'completed' }]);
    const { byReference, records } = world.sandbox.state.stats();
    expect(records).toBe(INVOICES);
    expect(Object.entries(byReference).filter(([, n]) => n !== 1)).toEqual([]);
  });
});
