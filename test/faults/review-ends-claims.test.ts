import { setTimeout as delay } from 'node:timers/promises';
import { expect, it } from 'vitest';
import { pipeline } from '../../pipelines/online-retail-invoices.ts';
import { describeEachDialect } from '../helpers/dialects.ts';
import { openFaultWorld, type FaultWorld } from '../helpers/open-fault-world.ts';
import { runCli, startCli, summaryOf } from '../helpers/run-cli.ts';
import { stopWorkerOnItsCreate } from '../helpers/stop-worker-on-its-create.ts';

const DAY = '2010-12-01';
const RUN = ['run', pipeline.name, '--date', DAY];

/** Polls until `check` holds (every 20 ms, at most `ms`). @throws Error naming what was awaited. */
async function waitUntil(what: string, check: () => Promise<boolean>, ms = 30_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await delay(20);
  }
}

describeEachDialect('moving an item to review ends every older claim on it (issue 28 §7)', (dialect) => {
  it.concurrent('mark-before-send: an idem work stopped mid-request past its claim, whose item the run moved to review, resumes, gets its answer, and its `posted` is refused: the item stays in review, job_runs needs_review, and the worker exits 3', async ({ task }) => {
    const world = await openFaultWorld(dialect, task.name);
    try {
      // One request in flight per process: the worker's stopped create is its only item sending.
      world.sandbox.configure({ idempotencyKeys: false, latencyMs: 5 });
      const env = { ...world.env({ strategy: 'mark-before-send', http: { concurrency: 1 } }), IDEM_CLAIM_TTL_MS: '1000' };
      const worker = startCli(['work', pipeline.name, '--run-key', DAY, '--poll-ms', '20', '--wait-ms', '60000'], env);
      const stopped = stopWorkerOnItsCreate(world, worker);
      const run = startCli(RUN, env);
      const reference = await stopped;
      let finished;
      try {
        // The worker's claim lapses; the run moves its `sending` item to review and posts the rest.
        finished = await run.done;
        expect(finished.code, finished.stderr).toBe(3);
        expect(await world.db.knex('post_ledger').where({ source_reference: reference }).select('status', 'claim_token')).toEqual([{ status: 'review', claim_token: null }]);
      } finally {
        worker.child.kill('SIGCONT');
      }
      const resumed = await worker.done;

      // The destination did apply it (the answer the worker got says so) ...
      expect(world.sandbox.state.countByReference(reference)).toBe(1);
      // ... but the ledger keeps what the run made of it: review, for an operator to confirm.
      const [item] = await world.db.knex('post_ledger').where({ source_reference: reference }).select('status', 'remote_reference');
      expect(item).toEqual({ status: 'review', remote_reference: null });
      expect(await world.db.knex('job_runs').select('status', 'attempts')).toEqual([{ status: 'needs_review', attempts: 1 }]);
      expect((await world.db.knex('post_ledger').whereNot({ status: 'posted' }).select('source_reference')).map((r) => r.source_reference)).toEqual([reference]);

      // The worker says its outcome was refused, counts it, and exits as idem work's table says: 3.
      expect(resumed.code, resumed.stderr).toBe(3);
      expect(summaryOf(resumed)).toMatchObject({ outcome: 'needs-review', exitCode: 3 });
      expect(summaryOf(resumed).counts.post['sandbox-accounting'].refused).toBe(1);
      expect(resumed.logs.some((line) => line.refused === 1 && /no longer under this process's claim/.test(String(line.msg)))).toBe(true);

      // The operator confirms it from the destination; the run completes.
      const there = world.sandbox.state.recordsByReference(reference)[0]!;
      expect((await runCli(['review', pipeline.name, '--mark-posted', reference, '--remote-ref', there.id], env)).code).toBe(0);
      expect(await world.db.knex('job_runs').select('status')).toEqual([{ status: 'completed' }]);
    } finally {
      await world.close();
    }
  });
});
