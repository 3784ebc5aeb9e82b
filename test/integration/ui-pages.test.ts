import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load-config.ts';
import { loadPipeline } from '../../src/pipeline/load-pipeline.ts';
import { startUiServer, type UiServer } from '../../src/ui/start-ui-server.ts';
import { describeEachDialect } from '../helpers/dialects.ts';
import { setUpExampleProject, type ExampleProject } from '../helpers/example-project.ts';
import { PROJECT_DIR, runCli, startCli } from '../helpers/run-cli.ts';

const PIPELINE = 'online-retail-invoices';

// Issue 27 §1: the page's queries on every dialect (the browser test runs on SQLite): the calendar
// window, a run's unposted items, pages of review items, and a live run's lock holder on Now.
describeEachDialect('idem ui pages', (dialect) => {
  let project: ExampleProject;
  let server: UiServer;
  /** How far the page's clock runs ahead of the real one, ms. */
  let ahead = 0;

  beforeEach(async (context) => {
    project = await setUpExampleProject(dialect, context.task.name);
    const config = loadConfig({ ...project.env, IDEM_PROJECT_DIR: PROJECT_DIR }, PROJECT_DIR);
    const pipelines = new Map([[PIPELINE, await loadPipeline(PROJECT_DIR, PIPELINE)]]);
    ahead = 0;
    server = await startUiServer({ db: project.db, config, pipelines, now: () => Date.now() + ahead, staleMs: 30_000 }, {});
  });

  afterEach(async () => {
    await server.close();
    await project.close();
  });

  const get = async (pathAndQuery: string): Promise<string> => {
    const answer = await fetch(`${server.url}${pathAndQuery}`);
    const text = await answer.text();
    expect(answer.status, text.slice(0, 500)).toBe(200);
    return text;
  };

  it('shows a live run with the holder of its lock, then the calendar, the run and pages of review items', async () => {
    const release = path.join(mkdtempSync(path.join(tmpdir(), 'idem-ui-hold-')), 'release');
    const run = startCli(['run', PIPELINE, '--date', '2010-12-01'], { ...project.env, IDEM_FAILPOINTS: `before-complete=wait:${release}` });
    try {
      await expect.poll(() => get('now'), { timeout: 30_000, interval: 200 }).toMatch(/posting: 143 of 143 items posted/);
      const now = await get('now');
      expect(now).toContain('data-state="running"');
      // A server names the session that holds the lock; SQLite's lease is the run's own.
      expect(now).toMatch(dialect === 'sqlite' ? /the run&#39;s own process/ : /pid \d+ on [^<]*, run 2010-12-01/);
    } finally {
      writeFileSync(release, '');
    }
    expect((await run.done).code).toBe(0);
    expect((await runCli(['run', PIPELINE, '--date', '2010-12-03'], project.env)).code).toBe(0);

    expect(await get('now')).toContain('no runs in progress');
    const card = await get(`pipelines/${PIPELINE}`);
    expect(card).toContain('run keys 2010-09-05 to 2010-12-03 (Europe/London)');
    expect(card).toMatch(/data-date="2010-12-02" data-state="missing"/);
    expect(card).toMatch(/data-date="2010-12-03" data-state="completed"/);

    // 143 items in review: three pages of review items, and of the run's unposted items.
    await project.db.knex('post_ledger').where({ run_key: '2010-12-01' }).update({ status: 'review' });
    const rows = (html: string) => html.match(/<tr class="review-item"/g)?.length ?? 0;
    const pages = [await get('review'), await get(`review?pipeline=${PIPELINE}&page=2`), await get(`review?pipeline=${PIPELINE}&page=3`)];
    expect(pages.map(rows)).toEqual([50, 50, 43]);
    expect(pages[0]).toContain('next items →');
    expect(pages[2]).not.toContain('next items →');
    const unposted = await get(`run?pipeline=${PIPELINE}&key=2010-12-01&l=3`);
    expect(unposted).toContain('Ledger items not posted (143)');
    expect(unposted.match(/<td>review<\/td>/g)).toHaveLength(43);
  });

  it('flags a killed run as dead on Now, on the calendar and on its page, as idem status does', async () => {
    const killed = await runCli(['run', PIPELINE, '--date', '2010-12-01'], { ...project.env, IDEM_FAILPOINTS: 'before-complete=kill' });
    expect(killed.signal).toBe('SIGKILL');
    // A server frees the dead session's lock at once; on SQLite the heartbeat tells, once the lease has passed.
    if (dialect === 'sqlite') ahead = 120_000;
    const why = dialect === 'sqlite' ? /no heartbeat for \d+ s/ : /its app lock is free: no process holds it/;
    const now = await get('now');
    expect(now).toContain('data-state="dead"');
    expect(now).toMatch(new RegExp(`DEAD \\(started, ${why.source}\\)`));
    expect(await get(`pipelines/${PIPELINE}`)).toMatch(/data-date="2010-12-01" data-state="dead"/);
    expect(await get(`run?pipeline=${PIPELINE}&key=2010-12-01`)).toMatch(new RegExp(`not recorded: it died \\(${why.source}\\)`));
  });

  it.skipIf(dialect !== 'sqlite')('answers only requests addressed to loopback, and names a port in use', async () => {
    const status = (host: string) =>
      new Promise<number>((resolve, reject) => {
        const asked = request(`${server.url}pipelines`, { headers: { host } }, (answer) => (answer.resume(), resolve(answer.statusCode!)));
        asked.on('error', reject).end();
      });
    // A web page elsewhere, through a DNS name that points at 127.0.0.1, is refused; the loopback names are not.
    expect(await status('rebound.example:4321')).toBe(421);
    expect(await status(`localhost:${new URL(server.url).port}`)).toBe(200);
    const taken = await runCli(['ui', '--port', new URL(server.url).port], project.env);
    expect(taken.code).toBe(2);
    expect(taken.stderr).toContain('idem ui cannot listen on 127.0.0.1');
  });

  it.skipIf(dialect !== 'sqlite')("redacts the secrets of a destination's URL", async () => {
    const destinations = JSON.stringify({ 'sandbox-accounting': { url: 'http://ui:CanaryUiPw3391@127.0.0.1:9/?token=CanaryUiTok8812', headers: { authorization: 'Bearer CanaryUiHdr' } } });
    const config = loadConfig({ ...project.env, IDEM_DESTINATIONS: destinations, IDEM_PROJECT_DIR: PROJECT_DIR }, PROJECT_DIR);
    const pipelines = new Map([[PIPELINE, await loadPipeline(PROJECT_DIR, PIPELINE)]]);
    const secretive = await startUiServer({ db: project.db, config, pipelines, now: () => Date.now(), staleMs: 30_000 }, {});
    try {
      const page = await (await fetch(`${secretive.url}pipelines`)).text();
      expect(page).toContain('http://ui:***@127.0.0.1:9/?token=***');
      expect(page).not.toMatch(/CanaryUi/);
    } finally {
      await secretive.close();
    }
  });

  it.skipIf(dialect !== 'sqlite')("right after npm run demo, with no database of its own, shows the demo's", async () => {
    const projectDir = mkdtempSync(path.join(tmpdir(), 'idem-ui-demo-'));
    mkdirSync(path.join(projectDir, 'var'));
    // The project's migrations, which the database has applied (pipelines/ is left out: the page shows runs alone).
    symlinkSync(path.join(PROJECT_DIR, 'migrations'), path.join(projectDir, 'migrations'));
    const demo = path.join(projectDir, 'var', 'demo.sqlite3');
    await project.db.knex.raw('vacuum into ?', [demo]);
    const ui = startCli(['ui', '--port', '0'], { IDEM_PROJECT_DIR: projectDir });
    const out = await new Promise<string>((resolve, reject) => {
      let text = '';
      ui.child.stdout!.on('data', (chunk: Buffer) => (text += chunk.toString(), text.includes('serving http') && resolve(text)));
      void ui.done.then((r) => reject(new Error(`idem ui exited ${r.code}: ${r.stderr}`)));
    });
    expect(out).toContain(`does not exist; showing the demo's database, ${demo}`);
    ui.child.kill('SIGTERM');
    expect((await ui.done).code).toBe(0);
    rmSync(projectDir, { recursive: true, force: true });
  });
});
