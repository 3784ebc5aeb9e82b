import { execFileSync } from 'node:child_process';
import { setTimeout as delay } from 'node:timers/promises';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { pipeline } from '../../pipelines/online-retail-invoices.ts';
import { describeEachDialect } from '../helpers/dialects.ts';
import { openFaultWorld, type FaultWorld } from '../helpers/open-fault-world.ts';
import { runCli, startCli, summaryOf, type CliResult } from '../helpers/run-cli.ts';
import { DESTINATION } from '../helpers/sandbox.ts';
import { waitForLogLine } from '../helpers/wait-for-log-line.ts';

const DAY = '2010-12-01';
const INVOICES = 143;
const RUN = ['run', pipeline.name, '--date', DAY];
const WORK = ['work', pipeline.name, '--run-key', DAY, '--poll-ms', '50'];

/** The `stage: 'summary'` line of a worker (it carries its `worker` name), or of the run (it does not). */
function summaries(result: CliResult): { run: Record<string, any>[]; workers: Record<string, any>[] } {
  const lines = result.logs.filter((line) => line.stage === 'summary') as Record<string, any>[];
  return { run: lines.filter((l) => l.worker === undefined), workers: lines.filter((l) => l.worker !== undefined) };
}

const postedBy = (summary: Record<string, any>): number => summary.counts?.post?.[DESTINATION]?.posted ?? 0;

describeEachDialect('idem work: post workers share one run', (dialect) => {
  let world: FaultWorld;

  beforeEach(async (context) => {
    world = await openFaultWorld(dialect, context.task.name);
  });

  afterEach(async () => {
    await world?.close();
  });

  /** What the run left: remote records by reference, ledger statuses, job_runs rows. */
  async function aftermath(): Promise<{ records: number; notOnce: [string, number][]; ledger: Record<string, number>; jobRuns: unknown[] }> {
    const { byReference, records } = world.sandbox.state.stats();
    const ledger = (await world.db.knex('post_ledger').select('status').count({ n: '*' }).groupBy('status')) as { status: string; n: number | string }[];
    return {
      records,
      notOnce: Object.entries(byReference).filter(([, count]) => count !== 1),
      ledger: Object.fromEntries(ledger.map((r) => [r.status, Number(r.n)])),
      jobRuns: (await world.db.knex('job_runs').select('status', 'attempts', 'stage')).map((r) => ({ ...r, attempts: Number(r.attempts) })),
    };
  }

  it('the run and two idem work processes each post part of the run; every invoice once, completed once', async () => {
    // 100 ms a request at concurrency 2: the run alone would need ~7 s, so the waiting workers
    // (they look every 50 ms) join long before the end and each claims batches of 16.
    world.sandbox.configure({ latencyMs: 100 });
    const env = world.env({ http: { concurrency: 2 } });
    const workers = [startCli([...WORK, '--wait-ms', '60000'], env), startCli([...WORK, '--wait-ms', '60000'], env)];
    const run = await runCli(RUN, env);
    const done = await Promise.all(workers.map((w) => w.done));
    expect(run.code, run.stdout + run.stderr).toBe(0);
    for (const worker of done) expect(worker.code, worker.stdout + worker.stderr).toBe(0);

    const shares = [postedBy(summaryOf(run)), ...done.map((w) => postedBy(summaryOf(w)))];
    for (const share of shares) expect(share).toBeGreaterThan(0);
    expect(shares.reduce((a, b) => a + b, 0)).toBe(INVOICES);
    expect(await aftermath()).toEqual({ records: INVOICES, notOnce: [], ledger: { posted: INVOICES }, jobRuns: [{ status: 'completed', attempts: 1, stage: 'post' }] });
    // Claims are released by every outcome.
    expect(Number(((await world.db.knex('post_ledger').whereNotNull('claim_expires_at').count({ n: '*' })) as { n: number | string }[])[0]!.n)).toBe(0);

    // A rerun is a no-op, and a worker started after the end exits 0 at once.
    expect((await runCli(RUN, env)).code).toBe(0);
    const late = await runCli([...WORK, '--wait-ms', '60000'], env);
    expect(late.code).toBe(0);
    expect(summaryOf(late)).toMatchObject({ outcome: 'completed', counts: { post: {} } });
    expect(world.sandbox.state.records()).toHaveLength(INVOICES);
  });

  it('idem work waits for the post stage, then says there was nothing to do (exit 0)', async () => {
    const result = await runCli([...WORK, '--wait-ms', '300'], world.env());
    expect(result.code, result.stdout + result.stderr).toBe(0);
    expect(summaryOf(result)).toMatchObject({ outcome: 'idle', exitCode: 0 });
    expect(summaryOf(result).msg).toMatch(/nothing to do/);
  });
});

describeEachDialect('idem run --workers', (dialect) => {
  let world: FaultWorld;

  beforeEach(async (context) => {
    world = await openFaultWorld(dialect, context.task.name);
  });

  afterEach(async () => {
    await world?.close();
  });

  it('--workers 3 starts two idem work children for the post stage and waits for them', async () => {
    world.sandbox.configure({ latencyMs: 100 });
    const env = world.env({ http: { concurrency: 2 } });
    const result = await runCli([...RUN, '--workers', '3'], env);
    expect(result.code, result.stdout + result.stderr).toBe(0);
    const { run, workers } = summaries(result);
    expect(run).toHaveLength(1);
    expect(workers).toHaveLength(2);
    for (const worker of workers) expect(worker).toMatchObject({ outcome: 'completed', exitCode: 0 });
    expect([...run, ...workers].map(postedBy).reduce((a, b) => a + b, 0)).toBe(INVOICES);
    const { byReference, records } = world.sandbox.state.stats();
    expect(records).toBe(INVOICES);
    expect(Object.values(byReference).every((n) => n === 1)).toBe(true);
    expect(await world.db.knex('job_runs').select('status', 'attempts')).toEqual([{ status: 'completed', attempts: 1 }]);
    // job_runs (and idem status) count every process's share, not the completing process's own.
    const [jobRun] = await world.db.knex('job_runs').select('counts');
    expect(JSON.parse(jobRun.counts).ledger).toEqual({ posted: INVOICES });
    const status = await runCli(['status', pipeline.name], env);
    expect(status.stdout).toMatch(/posted 143\b/);
  });

  it('SIGTERM to the run stops it and its idem work children politely (each exits 75, unsent claims released); a plain rerun at once finishes the run', async () => {
    world.sandbox.configure({ latencyMs: 300 });
    const env = { ...world.env({ http: { concurrency: 1 } }), IDEM_CLAIM_TTL_MS: '1000' };
    const run = startCli([...RUN, '--workers', '3'], env);
    let joined = 0;
    const bothJoined = waitForLogLine(run, (line) => String(line.msg).startsWith('joining the post stage') && ++joined === 2);
    const children = (): number[] => {
      try {
        return execFileSync('ps', ['--ppid', String(run.child.pid), '-o', 'pid='], { encoding: 'utf8' }).split('\n').map(Number).filter((pid) => pid > 0);
      } catch {
        return []; // ps exits 1 when no process matches
      }
    };
    let workers: number[] = [];
    for (let i = 0; i < 200 && workers.length < 2; i++) {
      await delay(100);
      workers = children();
    }
    expect(workers).toHaveLength(2);
    // Both workers are posting (their logs are the run's).
    await bothJoined;
    run.child.kill('SIGTERM');
    const stopped = await run.done;
    expect(stopped.code, stopped.stderr).toBe(75);
    const { run: runSummary, workers: workerSummaries } = summaries(stopped);
    expect(runSummary).toEqual([expect.objectContaining({ outcome: 'stopped', exitCode: 75 })]);
    // Each child heard the signal once (its own process group: no second, hard stop) and stopped politely.
    expect(workerSummaries).toEqual([expect.objectContaining({ outcome: 'stopped', exitCode: 75 }), expect.objectContaining({ outcome: 'stopped', exitCode: 75 })]);
    expect(await world.db.knex('job_runs').select('status', 'error')).toEqual([{ status: 'stopped', error: expect.stringMatching(/^stopped by SIGTERM: /) }]);
    // Every item is posted or free to claim at once: no claim is left for the rerun to wait out.
    expect(Number(((await world.db.knex('post_ledger').where({ status: 'pending' }).whereNotNull('claim_expires_at').count({ n: '*' })) as [{ n: number | string }])[0].n)).toBe(0);
    const alive = (pid: number): boolean => {
      try {
        process.kill(pid, 0);
        return true;
      } catch {
        return false;
      }
    };
    for (let i = 0; i < 100 && workers.some(alive); i++) await delay(100);
    expect(workers.filter(alive)).toEqual([]);
    expect(world.sandbox.state.records().length).toBeLessThan(INVOICES);

    world.sandbox.configure({ latencyMs: 0 });
    const rerun = await runCli(RUN, env);
    expect(rerun.code, rerun.stdout + rerun.stderr).toBe(0);
    const { byReference, records } = world.sandbox.state.stats();
    expect(records).toBe(INVOICES);
    expect(Object.values(byReference).every((n) => n === 1)).toBe(true);
  });

  it('refuses more than 32 local workers, and an idem work run key that is neither a date nor a file key', async () => {
    const many = await runCli([...RUN, '--workers', '33'], world.env());
    expect(many.code).toBe(2);
    expect(many.stderr).toMatch(/--workers must be a whole number ≥ 1 and ≤ 32 \(got "33"\)/);
    for (const key of ['garbage', '2010-12-1', '2010-02-30']) {
      const typo = await runCli(['work', pipeline.name, '--run-key', key], world.env());
      expect(typo.code, key).toBe(2);
      expect(typo.stderr).toMatch(/--run-key must be/);
    }
  });

  it('rejects --workers with --catch-up', async () => {
    const result = await runCli(['run', pipeline.name, '--catch-up', '--workers', '2'], world.env());
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/--workers shares the post stage of one run/);
  });
});
