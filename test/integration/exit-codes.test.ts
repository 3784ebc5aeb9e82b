import { describe, expect, it } from 'vitest';
import { pipeline } from '../../pipelines/online-retail-invoices.ts';
import { describeOneDialect } from '../helpers/dialects.ts';
import { openFaultWorld } from '../helpers/open-fault-world.ts';
import path from 'node:path';
import { PROJECT_DIR, runCliChild, summaryOf } from '../helpers/run-cli.ts';
import { closedPort } from '../helpers/closed-port.ts';

// Issue 14: each exit code tells a scheduler what to do: 75 retry later, 3 a person must act,
// 1 failed, 2 usage. Each is reached here through the CLI against a real failing server.
const DAY = '2010-12-01';
const RUN = ['run', pipeline.name, '--date', DAY];
const INVOICES = 143;


// Each command is a real child process (runCliChild): the subject is the exit code a scheduler reads.
describeOneDialect('exit codes a scheduler acts on', (dialect) => {
  it.concurrent('a destination answering 503 through every retry: exit 75 (retry later); the rerun after the outage completes', async () => {
    const world = await openFaultWorld(dialect, 'exit-503');
    try {
      world.sandbox.addFaults([{ kind: 'status', status: 503, count: 100_000 }]);
      const env = world.env({ http: { retry: { maxAttempts: 2 } } });
      const outage = await runCliChild(RUN, env);
      expect(outage.code, outage.stdout + outage.stderr).toBe(75);
      expect(summaryOf(outage)).toMatchObject({ outcome: 'unavailable', exitCode: 75 });
      // The review says a rerun is all a transient failure needs, and names the run key.
      const review = await runCliChild(['review', pipeline.name], env);
      expect(review.code).toBe(0);
      expect(review.stdout).toContain(`Items failed (transient): the destination was unavailable. Nothing to check there: once it is back, rerun their run key:\n  idem run ${pipeline.name} --date ${DAY}\n`);
      expect(review.stdout).not.toContain('check the destination for its reference');
      world.sandbox.reset();
      const after = await runCliChild(RUN, env);
      expect(after.code, after.stdout + after.stderr).toBe(0);
      expect(world.sandbox.state.records()).toHaveLength(INVOICES);
    } finally {
      await world.close();
    }
  });

  it.concurrent('a destination refusing connections: exit 75', async () => {
    const world = await openFaultWorld(dialect, 'exit-refused');
    try {
      const env = { ...world.env({ http: { retry: { maxAttempts: 2 } } }) };
      const port = await closedPort();
      env.IDEM_DESTINATIONS = env.IDEM_DESTINATIONS!.replace(world.sandbox.url, `http://127.0.0.1:${port}`);
      // A file run key: the review names the file's path to rerun it with.
      const file = path.join(PROJECT_DIR, 'fixtures/online-retail/2010-12-01.csv');
      const result = await runCliChild(['run', pipeline.name, '--file', file], env);
      expect(result.code, result.stdout + result.stderr).toBe(75);
      expect(summaryOf(result).outcome).toBe('unavailable');
      expect((await runCliChild(['review', pipeline.name], env)).stdout).toContain(`  idem run ${pipeline.name} --file ${file}\n`);
    } finally {
      await world.close();
    }
  });

  it.concurrent('a terminal 400 on one invoice: exit 3 (a person must act), even with a 503 outage on others', async () => {
    const world = await openFaultWorld(dialect, 'exit-400');
    try {
      world.sandbox.addFaults([
        { kind: 'status', status: 400, reference: '536365', body: { error: 'validation_failed' } },
        { kind: 'status', status: 503, reference: '536366', count: 100 },
      ]);
      const result = await runCliChild(RUN, world.env({ http: { retry: { maxAttempts: 2 } } }));
      expect(result.code, result.stdout + result.stderr).toBe(3);
      expect(summaryOf(result).outcome).toBe('needs-review');
    } finally {
      await world.close();
    }
  });

  it.concurrent('a 409 "key in flight" (Stripe) is transient: retried with backoff under the same key, the invoice created once, exit 0', async () => {
    const world = await openFaultWorld(dialect, 'exit-409');
    try {
      world.sandbox.configure({ idempotencyKeys: true });
      world.sandbox.addFaults([{ kind: 'late-commit', ms: 4000, reference: '536365' }]);
      const env = world.env({ strategy: 'idempotency-key', http: { headersTimeoutMs: 1000, retry: { maxAttempts: 30, minDelayMs: 300, maxDelayMs: 600, maxRetryTimeMs: 30_000 } } });
      const result = await runCliChild(RUN, { ...env, LOG_LEVEL: 'debug' });
      expect(result.code, result.stdout + result.stderr).toBe(0);
      // The resends met the first request still in flight, and were retried, not failed.
      expect(result.stderr).toContain('HTTP 409 Conflict');
      // The debug line of each retry names the job_runs attempt once, and the request's own attempt apart.
      const retrying = result.stderr.split('\n').filter((line) => line.includes('"msg":"retrying"'));
      expect(retrying.length).toBeGreaterThan(0);
      for (const line of retrying) {
        expect(line.match(/"attempt":/g)).toHaveLength(1);
        expect(line).toMatch(/"requestAttempt":\d+/);
      }
      const posts = world.sandbox.state.stats().requests.filter((r) => r.method === 'POST' && r.reference === '536365');
      expect(posts.length).toBeGreaterThanOrEqual(3);
      expect(world.sandbox.state.countByReference('536365')).toBe(1);
      expect(await world.db.knex('post_ledger').where({ source_reference: '536365' }).select('status')).toEqual([{ status: 'posted' }]);
    } finally {
      await world.close();
    }
  });
});

describe('exit codes without a database', () => {
  it.each(['postgres', 'mysql'])('%s unreachable at start: exit 75, one sentence naming the host, never the password', async (scheme) => {
    const port = await closedPort();
    const result = await runCliChild(['status'], { DATABASE_URL: `${scheme}://idem:CanaryPw77@127.0.0.1:${port}/test` });
    expect(result.code).toBe(75);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe(`idem: the database at 127.0.0.1:${port} is unavailable (connection refused); retry later\n`);
  });

  it('usage: an unknown pipeline or flag exits 2', async () => {
    expect((await runCliChild(['run', 'no-such-pipeline', '--date', DAY])).code).toBe(2);
    expect((await runCliChild(['status', '--no-such-flag'])).code).toBe(2);
  });
});
