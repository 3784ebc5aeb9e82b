import { afterEach, beforeEach, expect, it } from 'vitest';
import type { Database } from '../../src/db/database.ts';
import type { SandboxApi } from '../../src/sandbox/start-sandbox-api.ts';
import { describeOneDialect } from '../helpers/dialects.ts';
import { setUpExampleProject, type ExampleProject } from '../helpers/example-project.ts';
import { startPingRecorder } from '../helpers/ping-recorder.ts';
import { runCli, startCli, summaryOf } from '../helpers/run-cli.ts';
import { waitForLogLine } from '../helpers/wait-for-log-line.ts';

describeOneDialect('operating idem: backfill, catch-up, status and heartbeats', (dialect) => {
  let project: ExampleProject;
  let db: Database;
  let sandbox: SandboxApi;
  let env: Record<string, string>;

  beforeEach(async (context) => {
    project = await setUpExampleProject(dialect, context.task.name);
    ({ db, sandbox, env } = project);
  });

  afterEach(() => project.close());

  const statuses = async () =>
    (await db.knex('job_runs').select('run_key', 'status', 'attempts').orderBy('run_key')).map((r: any) => `${r.run_key} ${r.status} ${r.attempts}`);

  it('backfill runs each day once in order, skips the day without a file, and a second backfill does nothing', async () => {
    const first = await runCli(['backfill', 'online-retail-invoices', '--from', '2010-12-01', '--to', '2010-12-07'], env);
    expect(first.code).toBe(0);
    const summaries = first.logs.filter((l) => l.stage === 'summary');
    expect(summaries.map((s) => `${s.runKey} ${s.outcome}`)).toEqual([
      '2010-12-01 completed', '2010-12-02 completed', '2010-12-03 completed', '2010-12-04 skipped',
      '2010-12-05 completed', '2010-12-06 completed', '2010-12-07 completed',
    ]);
    expect(first.logs.at(-1)).toMatchObject({ completed: 6, alreadyCompleted: 0, noSourceFile: 1 });
    expect(await statuses()).toEqual(['2010-12-01', '2010-12-02', '2010-12-03', '2010-12-05', '2010-12-06', '2010-12-07'].map((d) => `${d} completed 1`));
    const posted = sandbox.state.postRequests;

    const second = await runCli(['backfill', 'online-retail-invoices', '--from', '2010-12-01', '--to', '2010-12-07'], env);
    expect(second.code).toBe(0);
    expect(second.logs.at(-1)).toMatchObject({ completed: 0, alreadyCompleted: 6, noSourceFile: 1 });
    expect(sandbox.state.postRequests).toBe(posted);
    expect(await statuses()).toEqual(['2010-12-01', '2010-12-02', '2010-12-03', '2010-12-05', '2010-12-06', '2010-12-07'].map((d) => `${d} completed 1`));
  });

  it('backfill stops at the first failing date with exit 1 and names it', async () => {
    const broken = { ...env, IDEM_FAILPOINTS: 'after-upsert=fail' };
    const result = await runCli(['backfill', 'online-retail-invoices', '--from', '2010-12-01', '--to', '2010-12-03'], broken);
    expect(result.code).toBe(1);
    expect(result.logs.at(-1)).toMatchObject({ stoppedAt: '2010-12-01', msg: expect.stringContaining('stopped at 2010-12-01') });
    expect(await statuses()).toEqual(['2010-12-01 failed 1']);
  });

  it('catch-up runs every date after the last completed one up to yesterday in London, with an injected now', async () => {
    expect((await runCli(['run', 'online-retail-invoices', '--date', '2010-12-01'], env)).code).toBe(0);
    // 00:30 in London on 2010-12-04 (UTC+0 in winter): yesterday is 2010-12-03.
    const result = await runCli(['run', 'online-retail-invoices', '--catch-up'], { ...env, IDEM_NOW: '2010-12-04T00:30:00Z' });
    expect(result.code).toBe(0);
    expect(result.logs.find((l) => l.stage === 'catch-up')).toMatchObject({ lastCompleted: '2010-12-01', from: '2010-12-02', to: '2010-12-03', dates: 2 });
    expect(await statuses()).toEqual(['2010-12-01 completed 1', '2010-12-02 completed 1', '2010-12-03 completed 1']);
    const again = await runCli(['run', 'online-retail-invoices', '--catch-up'], { ...env, IDEM_NOW: '2010-12-04T00:30:00Z' });
    expect(again.logs.find((l) => l.stage === 'catch-up')).toMatchObject({ dates: 0 });
  });

  it('status prints the history and, with --json, the same as data', async () => {
    expect((await runCli(['run', 'online-retail-invoices', '--date', '2010-12-01'], env)).code).toBe(0);
    const table = await runCli(['status', 'online-retail-invoices'], env);
    expect(table.code).toBe(0);
    expect(table.stdout).toMatch(/online-retail-invoices\s+2010-12-01\s+completed\s+1\s+\S+\s+[\d.]+s\s+rows 3108, \+143 ~0 =0, posted 143/);
    const json = JSON.parse((await runCli(['status', '--json'], env)).stdout);
    expect(json.runs).toHaveLength(1);
    expect(json.runs[0]).toMatchObject({ jobName: 'online-retail-invoices', runKey: '2010-12-01', status: 'completed', attempts: 1, stuck: false });
    expect(json.runs[0].counts.upsert).toMatchObject({ inserted: 143 });
    expect(json.runs[0].counts.ledger).toEqual({ posted: 143 });
    expect(json.itemsNeedingOperator).toEqual({});
  });

  it('status flags a started run whose heartbeat stopped as stuck, and counts items needing an operator', async () => {
    const killed = await runCli(['run', 'online-retail-invoices', '--date', '2010-12-01'], { ...env, IDEM_FAILPOINTS: 'before-complete=kill' });
    expect(killed.signal).toBe('SIGKILL');
    await db.knex('post_ledger').where({ source_reference: '536365' }).update({ status: 'review' });
    const later = new Date(Date.now() + 120_000).toISOString();
    const json = JSON.parse((await runCli(['status', '--json'], { ...env, IDEM_NOW: later })).stdout);
    expect(json.runs[0]).toMatchObject({ runKey: '2010-12-01', status: 'started', stuck: true });
    expect(json.itemsNeedingOperator).toEqual({ 'online-retail-invoices': { review: 1, failed: 0, duplicatesAtDestination: 0 } });
    const table = await runCli(['status'], { ...env, IDEM_NOW: later });
    expect(table.stdout).toMatch(/DEAD \(started, (no heartbeat for \d+ s|its app lock is free: no process holds it)\)/);
    expect(table.stdout).toContain('online-retail-invoices: 1 item(s) in review, 0 failed — see idem review online-retail-invoices');
  });

  it('pings /start then success, /fail on failure, nothing on exit 75, with a run id; a dead monitor never fails the run', async () => {
    const monitor = await startPingRecorder();
    try {
      const ok = await runCli(['run', 'online-retail-invoices', '--date', '2010-12-01', '--heartbeat-url', monitor.url], env);
      expect(ok.code).toBe(0);
      expect(monitor.pings.map((p) => p.path)).toEqual(['/ping/abc/start', '/ping/abc']);
      const runId = summaryOf(ok).runId;
      expect(monitor.pings.every((p) => p.rid === runId)).toBe(true);

      monitor.pings.length = 0;
      const failed = await runCli(['run', 'online-retail-invoices', '--date', '2010-12-02', '--heartbeat-url', monitor.url], { ...env, IDEM_FAILPOINTS: 'after-stage=fail' });
      expect(failed.code).toBe(1);
      expect(monitor.pings.map((p) => p.path)).toEqual(['/ping/abc/start', '/ping/abc/fail']);

      monitor.pings.length = 0;
      const heartbeats = { ...env, IDEM_HEARTBEATS: JSON.stringify({ 'online-retail-invoices': monitor.url }) };
      const holder = startCli(['run', 'online-retail-invoices', '--date', '2010-12-03'], { ...heartbeats, IDEM_FAILPOINTS: 'after-stage=sleep:1000' });
      // Staged, so it holds the lock, and idle in the failpoint's sleep (no transaction open):
      // stopped there until the other run has met the lock.
      await waitForLogLine(holder, (line) => line.stage === 'stage');
      holder.child.kill('SIGSTOP');
      const blocked = await runCli(['run', 'online-retail-invoices', '--date', '2010-12-05'], heartbeats);
      holder.child.kill('SIGCONT');
      expect(blocked.code).toBe(75);
      expect((await holder.done).code).toBe(0);
      expect(monitor.pings.map((p) => p.path)).toEqual(['/ping/abc/start', '/ping/abc']);
    } finally {
      await monitor.close();
    }
    const dead = await runCli(['run', 'online-retail-invoices', '--date', '2010-12-06', '--heartbeat-url', 'http://127.0.0.1:9/ping'], env);
    expect(dead.code).toBe(0);
    expect(dead.logs.filter((l) => l.msg === 'heartbeat ping failed; the run goes on')).toHaveLength(2);
  });
});
