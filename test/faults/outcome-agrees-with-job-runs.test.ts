import { expect, it } from 'vitest';
import { pipeline } from '../../pipelines/online-retail-invoices.ts';
import { describeOneDialect } from '../helpers/dialects.ts';
import { openFaultWorld, type FaultWorld } from '../helpers/open-fault-world.ts';
import { runCliChild, summaryOf } from '../helpers/run-cli.ts';

// Issue 28 §7: after 500s, or a destination slower than the timeout, the run exited 75 ("retry
// later") while job_runs said needs_review, so `idem status` and the scheduler disagreed. Now the
// exit code, the summary line, job_runs and `idem status` tell one story, from one table
// (postedRunStatus): transient failures only → 75 and `unavailable`; anything in review or
// failed terminally → 3 and `needs_review`.
const DAY = '2010-12-01';
const RUN = ['run', pipeline.name, '--date', DAY];
const INVOICES = 143;

/** The run key's job_runs row, `idem status`'s table line for it, and `idem status --json`'s status. */
async function told(world: FaultWorld, env: Record<string, string>) {
  const [jobRun] = await world.db.knex('job_runs').select('status');
  const status = await runCliChild(['status', pipeline.name], env);
  const json = await runCliChild(['status', pipeline.name, '--json'], env);
  expect(status.code, status.stderr).toBe(0);
  const line = status.stdout.split('\n').find((l) => l.includes(DAY))!;
  return { jobRuns: jobRun.status as string, statusLine: line, statusJson: (JSON.parse(json.stdout) as { runs: { status: string }[] }).runs[0]!.status, statusText: status.stdout };
}

// Each command is a real child process (runCliChild): the subject is the exit code a scheduler reads.
describeOneDialect('the exit code and job_runs tell one story (issue 28 §7)', (dialect) => {
  it.concurrent('a destination answering 500 through every retry: exit 75, job_runs unavailable (not needs_review), idem status says unavailable; the rerun completes', async ({ task }) => {
    const world = await openFaultWorld(dialect, task.name);
    try {
      world.sandbox.addFaults([{ kind: 'status', status: 500, count: 100_000 }]);
      const env = world.env({ http: { retry: { maxAttempts: 2 } } });
      const outage = await runCliChild(RUN, env);
      expect(outage.code, outage.stderr).toBe(75);
      expect(summaryOf(outage)).toMatchObject({ outcome: 'unavailable', exitCode: 75 });
      const story = await told(world, env);
      expect(story.jobRuns).toBe('unavailable');
      expect(story.statusJson).toBe('unavailable');
      expect(story.statusLine).toMatch(/\bunavailable\b/);
      expect(story.statusText).toContain(`${pipeline.name} ${DAY} unavailable: items failed transiently (the destination stayed unavailable through every retry); run it again later`);
      const [{ n }] = (await world.db.knex('post_ledger').where({ status: 'failed', failure_kind: 'transient' }).count({ n: '*' })) as [{ n: number | string }];
      expect(Number(n)).toBe(INVOICES);

      world.sandbox.reset();
      const after = await runCliChild(RUN, env);
      expect(after.code, after.stderr).toBe(0);
      expect((await told(world, env)).jobRuns).toBe('completed');
      expect(world.sandbox.state.records()).toHaveLength(INVOICES);
    } finally {
      await world.close();
    }
  });

  it.concurrent('a destination slower than the timeout for one invoice: exit 75, job_runs unavailable, idem status says unavailable; the rerun completes it once', async ({ task }) => {
    const world = await openFaultWorld(dialect, task.name);
    try {
      // Every request for 536365 is answered 1.5 s after it came; the client gives up after 300 ms.
      world.sandbox.addFaults([{ kind: 'late-commit', ms: 1500, reference: '536365', count: 2 }]);
      const env = world.env({ http: { headersTimeoutMs: 300, retry: { maxAttempts: 2 } } });
      const slow = await runCliChild(RUN, env);
      expect(slow.code, slow.stderr).toBe(75);
      expect(summaryOf(slow)).toMatchObject({ outcome: 'unavailable', exitCode: 75 });
      const story = await told(world, env);
      expect(story.jobRuns).toBe('unavailable');
      expect(story.statusJson).toBe('unavailable');
      expect(story.statusLine).toMatch(/\bunavailable\b/);
      expect(await world.db.knex('post_ledger').whereNot({ status: 'posted' }).select('source_reference', 'status', 'failure_kind')).toEqual([{ source_reference: '536365', status: 'failed', failure_kind: 'transient' }]);

      const after = await runCliChild(RUN, env);
      expect(after.code, after.stderr).toBe(0);
      expect((await told(world, env)).jobRuns).toBe('completed');
      expect(world.sandbox.state.countByReference('536365')).toBe(1);
    } finally {
      await world.close();
    }
  });

  it.concurrent('transient failures beside one terminal 400: exit 3, job_runs needs_review, idem status says needs_review', async ({ task }) => {
    const world = await openFaultWorld(dialect, task.name);
    try {
      world.sandbox.addFaults([
        { kind: 'status', status: 400, reference: '536365', body: { error: 'validation_failed' } },
        { kind: 'status', status: 500, reference: '536366', count: 100 },
      ]);
      const env = world.env({ http: { retry: { maxAttempts: 2 } } });
      const result = await runCliChild(RUN, env);
      expect(result.code, result.stderr).toBe(3);
      expect(summaryOf(result)).toMatchObject({ outcome: 'needs-review', exitCode: 3 });
      const story = await told(world, env);
      expect(story.jobRuns).toBe('needs_review');
      expect(story.statusJson).toBe('needs_review');
      expect(story.statusLine).toMatch(/\bneeds_review\b/);
      expect(story.statusText).not.toContain('unavailable');
    } finally {
      await world.close();
    }
  });

  it.concurrent('mark-before-send, a 500 that may have been applied: the item goes to review, exit 3, job_runs needs_review', async ({ task }) => {
    const world = await openFaultWorld(dialect, task.name);
    try {
      world.sandbox.configure({ idempotencyKeys: false });
      world.sandbox.addFaults([{ kind: 'status-after-commit', status: 500, reference: '536365' }]);
      const env = world.env({ strategy: 'mark-before-send' });
      const result = await runCliChild(RUN, env);
      expect(result.code, result.stderr).toBe(3);
      const story = await told(world, env);
      expect(story.jobRuns).toBe('needs_review');
      expect(story.statusJson).toBe('needs_review');
      expect(await world.db.knex('post_ledger').whereNot({ status: 'posted' }).select('source_reference', 'status')).toEqual([{ source_reference: '536365', status: 'review' }]);
    } finally {
      await world.close();
    }
  });
});
