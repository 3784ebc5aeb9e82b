import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir, userInfo } from 'node:os';
import path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { expect, it } from 'vitest';
import { pipeline } from '../../pipelines/online-retail-invoices.ts';
import { loadConfig } from '../../src/config/load-config.ts';
import { recordNoopRun } from '../../src/runs/job-runs-queries.ts';
import { startUiServer } from '../../src/ui/start-ui-server.ts';
import { describeEachDialect } from '../helpers/dialects.ts';
import { loseAppLock } from '../helpers/lose-app-lock.ts';
import { openFaultWorld, type FaultWorld } from '../helpers/open-fault-world.ts';
import { PROJECT_DIR, runCli, runCliWhenUnlocked, startCli, summaryOf } from '../helpers/run-cli.ts';

const DAY = '2010-12-01';
const RUN = ['run', pipeline.name, '--date', DAY];
/** A scheduler's identity with markup in it: the page shows it as text. */
const SCHEDULER = 'airflow <i>nightly_sync</i>';

async function until(what: string, condition: () => Promise<boolean>): Promise<void> {
  for (const deadline = Date.now() + 30_000; !(await condition()); await delay(50)) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
  }
}

/** The run page's attempt rows as `[attempt, status]`, newest first, and the page's text. */
async function attemptsOnPage(url: string, page = 1): Promise<{ rows: [string, string][]; html: string }> {
  const answer = await fetch(`${url}run?pipeline=${pipeline.name}&key=${DAY}&a=${page}`);
  const html = await answer.text();
  expect(answer.status, html.slice(0, 300)).toBe(200);
  return { rows: [...html.matchAll(/<tr class="attempt" data-attempt="(\d*)" data-status="([a-z_]+)">/g)].map((m) => [m[1]!, m[2]!]), html };
}

// Issue 27 §1: each attempt of a run key is kept (job_run_attempts), with who started it and how
// it ended, written with job_runs' own statements; `idem status --date D --json` and the run page
// show them. Real runs on every dialect: a failed attempt, one that needs review and an operator
// completes, a no-op, one that loses its app lock, one killed (dead), and the one that completes.
describeEachDialect('the attempts of a run key: who started each and how it ended', (dialect) => {
  it.concurrent('records every attempt with its trigger, ending, error and exit code; the run page and idem status show them', async ({ task }) => {
    const world: FaultWorld = await openFaultWorld(dialect, task.name);
    const config = loadConfig({ ...world.env(), IDEM_PROJECT_DIR: PROJECT_DIR }, PROJECT_DIR);
    // On SQLite a dead run is told by its heartbeat: the page's clock runs ahead once the run is killed.
    let ahead = 0;
    const ui = await startUiServer({ db: world.db, config, pipelines: new Map([[pipeline.name, pipeline]]), now: () => Date.now() + ahead, staleMs: 30_000 }, {});
    try {
      // IDEM_TEST_CHILD: each attempt a process of its own, since each records its pid.
      const env = { ...world.env(), IDEM_TEST_CHILD: '1' };
      // 1. A failed attempt, started by a scheduler (IDEM_TRIGGERED_BY).
      const failed = await runCli(RUN, { ...env, IDEM_TRIGGERED_BY: SCHEDULER, IDEM_FAILPOINTS: 'after-upsert=fail' });
      expect(failed.code, failed.stderr).toBe(1);
      // 2. One that needs review (the destination refuses one invoice, 400), completed by an operator.
      world.sandbox.addFaults([{ kind: 'status', status: 400, reference: '536365' }]);
      expect((await runCli([...RUN, '--triggered-by', 'ops-alice'], env)).code).toBe(3);
      const resolved = await runCli(['review', pipeline.name, '--mark-posted', '536365', '--remote-ref', 'INV-1'], env);
      expect(resolved.stdout).toContain(`run ${DAY} is now completed`);
      // 3. A no-op.
      expect((await runCli(RUN, env)).code).toBe(0);
      // 4. One that loses its app lock, held in its post stage until the lock is gone.
      const release = path.join(mkdtempSync(path.join(tmpdir(), 'idem-attempts-')), 'release');
      const losing = startCli([...RUN, '--force'], { ...env, IDEM_FAILPOINTS: `before-complete=wait:${release}` });
      await until('attempt 3 to post', async () => (await world.db.knex('job_runs').first('attempts', 'stage'))?.stage === 'post' && Number((await world.db.knex('job_runs').first('attempts')).attempts) === 3);
      expect(await loseAppLock(dialect, world.db, world.testDb.url, pipeline.name, losing.child.pid!)).toBe(1);
      writeFileSync(release, '');
      const lost = await losing.done;
      expect(lost.code).toBe(dialect === 'sqlite' ? 1 : 75);
      // 5. One killed: the page shows it dead while it is the latest.
      const killed = await runCliWhenUnlocked([...RUN, '--force'], { ...env, IDEM_FAILPOINTS: 'before-complete=kill' });
      expect(killed.signal).toBe('SIGKILL');
      if (dialect === 'sqlite') ahead = 120_000;
      const dead = await attemptsOnPage(ui.url);
      expect(dead.rows[0]).toEqual(['4', 'dead']);
      expect(dead.html).toMatch(dialect === 'sqlite' ? /not recorded: it died \(no heartbeat for \d+ s\)/ : /not recorded: it died \(its app lock is free: no process holds it\)/);
      ahead = 0;
      // 6. The attempt that completes it, and finds attempt 4 dead.
      const completed = await runCliWhenUnlocked([...RUN, '--force', '--workers', '2'], env);
      expect(completed.code, completed.stderr).toBe(0);

      const status = await runCli(['status', pipeline.name, '--date', DAY, '--json'], env);
      const [run] = JSON.parse(status.stdout).runs;
      // job_runs counts both attempts that left it `started` (the lock lost, the killed) as died.
      expect(run).toMatchObject({ runKey: DAY, status: 'completed', attempts: 5, diedAttempts: 2 });
      const history = run.attemptHistory as Record<string, any>[];
      const who = { osUser: userInfo().username, host: hostname() };
      const runCommand = `idem run ${pipeline.name} --date ${DAY}`;
      expect(history).toMatchObject([
        { attempt: 5, status: 'completed', exitCode: 0, error: null, command: `${runCommand} --force --workers 2`, triggeredBy: who.osUser, ...who, counts: { ledger: { posted: 143 } } },
        { attempt: 4, status: 'dead', exitCode: null, endedBy: 'attempt 5', command: `${runCommand} --force` },
        { attempt: 3, status: 'lock_lost', exitCode: lost.code, error: expect.stringContaining('app lock "idem:online-retail-invoices" was lost') },
        { attempt: null, status: 'noop', exitCode: 0, command: runCommand },
        { attempt: 2, status: 'completed', exitCode: 3, triggeredBy: 'ops-alice', endedBy: `idem review --mark-posted 536365 (${who.osUser})`, counts: { ledger: { failed: 1 } } },
        { attempt: 1, status: 'failed', exitCode: 1, triggeredBy: SCHEDULER, error: 'failpoint after-upsert fired', command: runCommand, counts: { upsert: { inserted: 143 } } },
      ]);
      // Each attempt names its own process; a dead one ended at its last heartbeat, before the next started.
      expect(new Set(history.map((a) => a.pid)).size).toBe(6);
      expect(history.every((a) => a.pid !== process.pid && a.endedAt !== null)).toBe(true);
      expect(Date.parse(history[1]!.endedAt)).toBeLessThanOrEqual(Date.parse(history[0]!.startedAt));
      expect(Date.parse(history[1]!.endedAt)).toBeGreaterThanOrEqual(Date.parse(history[1]!.startedAt));

      // The page: the same attempts, newest first, the scheduler's name as text.
      const page = await attemptsOnPage(ui.url);
      expect(page.rows).toEqual([['5', 'completed'], ['4', 'dead'], ['3', 'lock_lost'], ['', 'noop'], ['2', 'completed'], ['1', 'failed']]);
      expect(page.html).toContain('airflow &lt;i&gt;nightly_sync&lt;/i&gt;');
      expect(page.html).not.toContain('<i>nightly_sync</i>');
      expect(page.html).toContain(`<code class="command">${runCommand} --force --workers 2</code>`);
      expect(page.html).toContain('failpoint after-upsert fired');
      expect(page.html).toContain('found by attempt 5');
      expect(page.html).toContain('by idem review --mark-posted 536365');
      expect(page.html).toContain('Attempts (5, 2 died)');
      // The query docs/operating.md gives operators reads the same history.
      const sql = /```sql\n(select [^`]*from job_run_attempts[^`]*?);?\n```/.exec(readFileSync(path.join(PROJECT_DIR, 'docs', 'operating.md'), 'utf8'))![1]!;
      const rows = world.db.adapter.rawRows(await world.db.knex.raw(sql)) as { attempt: number | null; status: string }[];
      expect(rows.map((r) => `${r.attempt ?? '-'} ${r.status}`)).toEqual(['5 completed', '4 dead', '3 lock_lost', '- noop', '2 completed', '1 failed']);

      // A run key a scheduler keeps running grows: the page shows 50 attempts a page.
      for (let i = 0; i < 50; i++) await recordNoopRun(world.db, { jobName: pipeline.name, runKey: DAY, triggeredBy: 'cron', exitCode: 0, now: new Date().toISOString() });
      const first = await attemptsOnPage(ui.url);
      expect(first.rows).toHaveLength(50);
      expect(first.rows.every(([attempt, status]) => attempt === '' && status === 'noop')).toBe(true);
      expect(first.html).toContain('next attempts →');
      const second = await attemptsOnPage(ui.url, 2);
      expect(second.rows).toEqual([['5', 'completed'], ['4', 'dead'], ['3', 'lock_lost'], ['', 'noop'], ['2', 'completed'], ['1', 'failed']]);
      expect(second.html).not.toContain('next attempts →');
      expect(existsSync(release)).toBe(true);

      // A run killed once every item was posted, which an idem work process then completes: the
      // attempt's end names the worker that wrote it.
      const orphan = await runCli(['run', pipeline.name, '--date', '2010-12-02'], { ...env, IDEM_FAILPOINTS: 'before-complete=kill' });
      expect(orphan.signal).toBe('SIGKILL');
      const worker = await runCli(['work', pipeline.name, '--run-key', '2010-12-02', '--wait-ms', '0'], env);
      expect(worker.code, worker.stderr).toBe(0);
      const [other] = JSON.parse((await runCli(['status', pipeline.name, '--date', '2010-12-02', '--json'], env)).stdout).runs;
      expect(other.attemptHistory).toMatchObject([{ attempt: 1, status: 'completed', exitCode: 0, endedBy: summaryOf(worker).worker, command: `idem run ${pipeline.name} --date 2010-12-02` }]);
      expect(other.attemptHistory[0].endedBy).toMatch(/^worker [0-9a-f-]+, pid \d+ on /);
    } finally {
      await ui.close();
      await world.close();
    }
    // Eleven idem processes one after the other: on a loaded machine a minute is not enough.
  }, 240_000);
});
