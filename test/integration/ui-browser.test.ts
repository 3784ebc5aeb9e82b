import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { editedFixture } from '../helpers/fixtures.ts';
import { setUpExampleProject, type ExampleProject } from '../helpers/example-project.ts';
import { PROJECT_DIR, runCli, startCli, type CliProcess } from '../helpers/run-cli.ts';

// Issue 27 §1: `idem ui` in a real browser (Debian's chromium driven by playwright-core), over a
// real SQLite database that real runs write (the page's SQL is the same on every dialect and is
// checked on each in ui-pages.test.ts). One browser for the whole file.
const CHROMIUM = '/usr/bin/chromium';
const PIPELINE = 'online-retail-invoices';
/** Hostile text in a source field: rendered as text, it runs nothing. */
const HOSTILE_DESCRIPTION = '<script>window.__pwned=1</script><img src=x onerror=window.__pwned=2>';
/** A scheduler's identity (IDEM_TRIGGERED_BY), with markup in it: the page shows it as text. */
const SCHEDULER = 'airflow <b>nightly_sync</b>';
/** Set to a directory (docs) to save one screenshot per view there. */
const SCREENSHOTS = process.env.IDEM_UI_SCREENSHOTS;

/** Starts `idem ui` on a free port and resolves with its URL once it prints it. */
async function startUi(env: Record<string, string>, args: string[] = []): Promise<{ ui: CliProcess; url: string }> {
  const ui = startCli(['ui', '--port', '0', ...args], env);
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    ui.child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const found = /serving (http:\/\/\S+)/.exec(out)?.[1];
      if (found) resolve(found);
    });
    void ui.done.then((r) => reject(new Error(`idem ui exited ${r.code}: ${r.stderr}`)));
  });
  return { ui, url };
}

async function stopUi(ui: CliProcess): Promise<void> {
  ui.child.kill('SIGTERM');
  expect((await ui.done).code).toBe(0);
}

async function screenshot(page: Page, name: string): Promise<void> {
  if (SCREENSHOTS) await page.screenshot({ path: path.resolve(PROJECT_DIR, SCREENSHOTS, `ui-${name}.png`) });
}

describe.skipIf(!existsSync(CHROMIUM))(`idem ui in chromium${existsSync(CHROMIUM) ? '' : ` (skipped: no ${CHROMIUM}; .ci/run installs it)`}`, () => {
  let project: ExampleProject;
  let browser: BrowserContext;
  let page: Page;
  let profile: string;
  let ui: CliProcess;
  let url: string;

  beforeAll(async () => {
    project = await setUpExampleProject('sqlite', 'ui browser');
    profile = mkdtempSync(path.join(tmpdir(), 'idem-chromium-'));
    browser = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM,
      headless: true,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
      viewport: { width: 1100, height: 720 },
    });
    page = browser.pages()[0] ?? (await browser.newPage());
    // A completed day; a failed day: a first attempt a scheduler started failed before it staged
    // anything, a second one failed on a bad line (with a hostile description), which it quarantined.
    expect((await runCli(['run', PIPELINE, '--date', '2010-12-01'], project.env)).code).toBe(0);
    expect((await runCli(['run', PIPELINE, '--date', '2010-12-02'], { ...project.env, IDEM_TRIGGERED_BY: SCHEDULER, IDEM_FAILPOINTS: 'before-stage=fail' })).code).toBe(1);
    const broken = editedFixture('2010-12-02', (line, n) => (n === 7 ? line.replace(/^(\d+,\w+,)[^,]*,\d+,/, `$1${HOSTILE_DESCRIPTION},seven,`) : line));
    expect((await runCli(['run', PIPELINE, '--date', '2010-12-02', '--triggered-by', 'ops-alice'], { ...project.env, IDEM_SOURCE_DIR: broken })).code).toBe(1);
    // An item whose outcome the destination left unknown, with hostile text in its last error.
    await project.db.knex('post_ledger').where({ source_reference: '536365' }).update({ status: 'review', last_error: `HTTP 504 after apply: ${HOSTILE_DESCRIPTION}` });
    await project.db.knex('job_runs').where({ job_name: PIPELINE, run_key: '2010-12-01' }).update({ status: 'needs_review' });
    ({ ui, url } = await startUi(project.env));
  });

  afterAll(async () => {
    await browser?.close();
    if (ui) await stopUi(ui);
    await project?.close();
    if (profile) rmSync(profile, { recursive: true, force: true });
  });

  it('shows a live run held at a failpoint on Now, with its lock holder, heartbeat and progress, then sees it complete', async () => {
    const release = path.join(mkdtempSync(path.join(tmpdir(), 'idem-ui-hold-')), 'release');
    const run = startCli(['run', PIPELINE, '--date', '2010-12-05', '--triggered-by', 'ui-test'], { ...project.env, IDEM_FAILPOINTS: `before-complete=wait:${release}` });
    try {
      // The run shows as soon as it starts; it stays once it reaches the failpoint, all its items posted.
      const live = page.locator('tr.live-run[data-run-key="2010-12-05"]');
      const row = async () => (await page.goto(`${url}now`), (await live.count()) === 1 ? await live.innerText() : '');
      await expect.poll(row, { timeout: 30_000, interval: 200 }).toMatch(/posting: (\d+) of \1 items posted/);
      await expect(live.getAttribute('data-state')).resolves.toBe('running');
      const text = await live.innerText();
      expect(text).toContain('ui-test');
      expect(text).toContain("the run's own process");
      expect(text).toMatch(/\d+(\.\d)? (ms|s) ago/);
      await screenshot(page, 'now');
    } finally {
      writeFileSync(release, '');
    }
    expect((await run.done).code).toBe(0);
    await page.goto(`${url}now`);
    await expect(page.locator('tr.live-run').count()).resolves.toBe(0);
    await expect(page.locator('main').innerText()).resolves.toContain('no runs in progress');
  });

  it('shows each date of the calendar: completed, needs review, failed, missing', async () => {
    await page.goto(url);
    expect(new URL(page.url()).pathname).toBe('/pipelines');
    const card = page.locator(`section.pipeline[data-pipeline="${PIPELINE}"]`);
    const state = (date: string) => card.locator(`.day[data-date="${date}"]`).getAttribute('data-state');
    await expect(state('2010-12-01')).resolves.toBe('needs_review');
    await expect(state('2010-12-02')).resolves.toBe('failed');
    await expect(state('2010-12-03')).resolves.toBe('missing');
    await expect(state('2010-12-05')).resolves.toBe('completed');
    await expect(state('2010-11-30')).resolves.toBe('none');
    const facts = await card.locator('table.facts').innerText();
    expect(facts).toContain('Europe/London');
    expect(facts).toMatch(/sandbox-accounting\s+·\s+idempotency-key\s+·\s+http:\/\/127\.0\.0\.1:\d+/);
    expect(facts).toMatch(/2010-12-05\s+completed/);
    await screenshot(page, 'pipelines');
  });

  it('shows a failed run: its error, its quarantined row with file, line, reason and the hostile text escaped', async () => {
    await page.goto(url);
    await page.locator(`section.pipeline[data-pipeline="${PIPELINE}"] .day[data-date="2010-12-02"]`).click();
    await expect(page.locator('h1').innerText()).resolves.toBe(`${PIPELINE} 2010-12-02`);
    const row = page.locator('table.quarantine tbody tr');
    await expect(row.count()).resolves.toBe(1);
    const cells = await row.locator('td').allInnerTexts();
    expect(cells[0]).toMatch(/2010-12-02\.csv$/);
    expect(cells[1]).toBe('7');
    expect(cells[2]).toContain('Quantity: expected an integer (got "seven")');
    expect(cells[3]).toContain(HOSTILE_DESCRIPTION);
    await expect(page.locator('main script, main img').count()).resolves.toBe(0);
    await expect(page.evaluate(() => (window as { __pwned?: number }).__pwned)).resolves.toBeUndefined();
    // Its attempts, newest first: who started each (the scheduler's name as text), and how each ended.
    const attempts = page.locator('table.attempts tr.attempt');
    await expect(attempts.evaluateAll((rows) => rows.map((r) => [r.getAttribute('data-attempt'), r.getAttribute('data-status')]))).resolves.toEqual([['2', 'failed'], ['1', 'failed']]);
    const [latest, first] = (await attempts.allInnerTexts()) as [string, string];
    expect(latest).toMatch(/^2 \(latest\)\s+ops-alice\s+\S+@\S+ · pid \d+\s+idem run online-retail-invoices --date 2010-12-02 --triggered-by ops-alice/);
    expect(latest).toContain('Quantity: expected an integer');
    expect(latest).toMatch(/\s1$/);
    expect(first).toMatch(/^1\s+airflow <b>nightly_sync<\/b>\s/);
    expect(first).toContain('failpoint before-stage fired');
    await expect(page.locator('table.attempts b b').count()).resolves.toBe(0);
    await expect(page.locator('section#attempts h2').innerText()).resolves.toBe('Attempts (2)');
    await screenshot(page, 'run');
  });

  it('shows a run whose ledger items are not all posted, with its stage chart and summary', async () => {
    await page.goto(`${url}run?pipeline=${PIPELINE}&key=2010-12-01`);
    await expect(page.locator('svg.stage-chart rect').count()).resolves.toBe(3);
    await expect(page.locator('p.summary').innerText()).resolves.toMatch(/extract: .*rows 3108/);
    const items = await page.locator('table.ledger tbody tr').allInnerTexts();
    expect(items).toHaveLength(1);
    expect(items[0]).toContain('536365');
    expect(items[0]).toContain(HOSTILE_DESCRIPTION);
  });

  it('lists the item in review with its last error escaped and the exact commands that resolve it', async () => {
    await page.goto(`${url}review`);
    const item = page.locator('tr.review-item[data-reference="536365"]');
    await expect(item.count()).resolves.toBe(1);
    const commands = await item.locator('code.cmd').allInnerTexts();
    expect(commands).toEqual([
      `idem review ${PIPELINE} --mark-posted 536365 --remote-ref <its id there>`,
      `idem review ${PIPELINE} --retry 536365`,
      `idem run ${PIPELINE} --date 2010-12-01`,
    ]);
    await expect(item.innerText()).resolves.toContain(`HTTP 504 after apply: ${HOSTILE_DESCRIPTION}`);
    await expect(page.locator('main script, main img').count()).resolves.toBe(0);
    await expect(page.evaluate(() => (window as { __pwned?: number }).__pwned)).resolves.toBeUndefined();
    await screenshot(page, 'review');
  });

  it('refuses an address other than loopback without IDEM_UI_TOKEN, and with it asks for the token', async () => {
    const refused = await runCli(['ui', '--host', '127.0.0.2', '--port', '0'], project.env);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('set IDEM_UI_TOKEN');
    const guarded = await startUi({ ...project.env, IDEM_UI_TOKEN: 'open sesame' }, ['--host', '127.0.0.2']);
    try {
      expect(guarded.url).toMatch(/^http:\/\/127\.0\.0\.2:\d+\/$/);
      const answer = await page.goto(`${guarded.url}review`);
      expect(answer?.status()).toBe(401);
      await page.fill('input[name=token]', 'wrong');
      await page.click('button[type=submit]');
      await expect(page.locator('.flag').innerText()).resolves.toBe('That is not the token.');
      await page.fill('input[name=token]', 'open sesame');
      await page.click('button[type=submit]');
      expect(new URL(page.url()).pathname).toBe('/review');
      await expect(page.locator('tr.review-item').count()).resolves.toBe(1);
    } finally {
      await stopUi(guarded.ui);
    }
  });
});
