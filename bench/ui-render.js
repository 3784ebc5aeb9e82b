#!/usr/bin/env node
// Figure: `idem ui` over a year of history — 305 run keys and 25,900 ledger items of one pipeline
// (issue 27: every view renders in under a second on this machine). `npm run build`, then
// `node bench/ui-render.js` (the project's Node: node_modules/.bin/node). A fresh SQLite database
// (BENCH_UI_DATABASE_URL: another, empty one) is migrated by `idem migrate` and filled with rows
// as runs write them: 305 business dates, 85 items each (a few in review or failed, a few
// unposted) and 2 quarantined rows a day. Each view is fetched over HTTP from the server
// `idem ui` runs (started in this process, from dist/), median of BENCH_UI_ROUNDS (7) after one
// warm-up, beside the baseline in the same run: a plain knex read of the rows that view shows,
// without the page. Prints one table; writes nothing. Not a timed test: a figure, with its target.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { median } from './lib/stats.js';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const dist = (file) => pathToFileURL(path.join(repo, 'dist', 'src', file)).href;
const { loadConfig } = await import(dist('config/load-config.js'));
const { openDatabase } = await import(dist('db/open-database.js'));
const { loadPipeline, listPipelineNames } = await import(dist('pipeline/load-pipeline.js'));
const { startUiServer } = await import(dist('ui/start-ui-server.js'));
const { column } = await import(dist('column/column-type.js'));

const PIPELINE = 'online-retail-invoices';
const RUN_KEYS = 305;
const ITEMS_PER_RUN_KEY = 85; // 305 × 85 = 25,925 ≥ 25,900
const LEDGER_ITEMS = 25_900;
const TARGET_S = 1;
const ROUNDS = Number(process.env.BENCH_UI_ROUNDS ?? 7);

const tmp = mkdtempSync(path.join(os.tmpdir(), 'idem-bench-ui-'));
const databaseUrl = process.env.BENCH_UI_DATABASE_URL ?? `sqlite:${path.join(tmp, 'ui.sqlite3')}`;
const env = { ...process.env, DATABASE_URL: databaseUrl, IDEM_PROJECT_DIR: repo, LOG_LEVEL: 'warn' };
execFileSync(process.execPath, [path.join(repo, 'bin', 'idem.js'), 'migrate'], { env, stdio: 'inherit' });

const config = loadConfig(env, repo);
const db = await openDatabase(config);
let server;
try {
  // A year of history, as runs leave it.
  const day = (i) => new Date(Date.UTC(2010, 11, 1) + i * 86_400_000).toISOString().slice(0, 10);
  const now = new Date().toISOString();
  const instant = (iso) => db.adapter.toDriverValue(column.instant(), iso);
  const counts = JSON.stringify({ extract: { rows: 3108, quarantined: 2 }, stage: { records: 143, staged: 143, ms: 950 }, upsert: { inserted: 85, updated: 0, unchanged: 58, ms: 120 }, post: { 'sandbox-accounting': { strategy: 'idempotency-key', sent: 85, posted: 83, ms: 640 } }, ledger: { posted: 83, review: 1, failed: 1 } });
  const runs = [];
  for (let i = 0; i < RUN_KEYS; i++) {
    const status = i % 50 === 7 ? 'failed' : i % 10 === 3 ? 'needs_review' : 'completed';
    runs.push({ job_name: PIPELINE, run_key: day(i), status, attempts: 1 + (i % 3 === 0 ? 1 : 0), triggered_by: 'cron', started_at: instant(now), finished_at: instant(now), heartbeat_at: instant(now), counts, error: status === 'failed' ? 'HTTP 500 from sandbox-accounting' : null, created_at: instant(now), updated_at: instant(now), stage: 'post', died_attempts: 0 });
  }
  await db.knex.batchInsert('job_runs', runs, 100);
  const items = [];
  for (let n = 0; n < LEDGER_ITEMS; n++) {
    const i = Math.floor(n / ITEMS_PER_RUN_KEY);
    const k = n % ITEMS_PER_RUN_KEY;
    const status = k === 0 ? 'review' : k === 1 ? 'failed' : k === 2 && i % 10 === 3 ? 'pending' : 'posted';
    items.push({
      job_name: PIPELINE, destination: 'sandbox-accounting', source_system: 'online-retail', source_reference: `${536000 + n}`, row_hash: `h${n}`, idempotency_key: `k${n}`,
      run_key: day(i), status, failure_kind: status === 'failed' ? 'terminal' : null, attempts: 1, remote_reference: status === 'posted' ? `inv_${n}` : null,
      last_http_status: status === 'posted' ? 201 : 504, last_error: status === 'posted' ? null : 'HTTP 504 after apply: <b>outcome unknown</b>', created_at: instant(now), updated_at: instant(now), posted_at: status === 'posted' ? instant(now) : null,
    });
  }
  await db.knex.batchInsert('post_ledger', items, 500);
  const quarantine = [];
  for (let i = 0; i < RUN_KEYS; i++) for (const line of [17, 230]) quarantine.push({ job_name: PIPELINE, run_key: day(i), source: `${day(i)}.csv`, line, reason: 'Quantity: expected an integer (got "seven")', raw: `536599,22727,<script>ALARM CLOCK</script>,seven,${day(i)} 07:49:00,3.75,15694.0,United Kingdom`, created_at: instant(now) });
  await db.knex.batchInsert('quarantine', quarantine, 100);

  const pipelines = new Map();
  for (const name of listPipelineNames(repo)) pipelines.set(name, await loadPipeline(repo, name));
  // "Today" a day after the history ends, so the calendar's window is the year's last 90 days.
  const today = Date.UTC(2010, 11, 1) + RUN_KEYS * 86_400_000;
  server = await startUiServer({ db, config, pipelines, now: () => today, staleMs: 30_000 }, {});

  const views = [
    { name: 'Pipelines', path: 'pipelines', baseline: () => db.knex('job_runs').where({ job_name: PIPELINE }).orderBy('run_key', 'desc').limit(90) },
    { name: 'a pipeline (calendar + 50 runs)', path: `pipelines/${PIPELINE}`, baseline: () => db.knex('job_runs').where({ job_name: PIPELINE }).orderBy('run_key', 'desc').limit(140) },
    { name: 'a run (needs review)', path: `run?pipeline=${PIPELINE}&key=${day(3)}`, baseline: () => db.knex('post_ledger').where({ job_name: PIPELINE, run_key: day(3) }) },
    { name: 'Now', path: 'now', baseline: () => db.knex('job_runs').where({ status: 'started' }) },
    { name: 'Review (first 50 of 610)', path: 'review', baseline: () => db.knex('post_ledger').where({ job_name: PIPELINE }).whereIn('status', ['review', 'failed']).orderBy('id').limit(51) },
  ];
  const time = async (fn) => {
    const started = performance.now();
    await fn();
    return (performance.now() - started) / 1000;
  };
  const rows = [];
  for (const view of views) {
    const page = [];
    const base = [];
    for (let round = -1; round < ROUNDS; round++) {
      const seconds = await time(async () => {
        const answer = await fetch(`${server.url}${view.path}`);
        if (answer.status !== 200) throw new Error(`${view.path} answered ${answer.status}: ${(await answer.text()).slice(0, 500)}`);
        await answer.text();
      });
      const baseline = await time(view.baseline);
      if (round < 0) continue;
      page.push(seconds);
      base.push(baseline);
    }
    const s = median(page);
    const b = median(base);
    rows.push(`| ${view.name} | ${s.toFixed(3)} s | ${b.toFixed(3)} s (knex read of its rows) | ${(s / b).toFixed(1)}× | < ${TARGET_S} s | ${s < TARGET_S ? 'ok' : 'MISSED'} |`);
  }
  process.stdout.write(
    `\nidem ui over ${RUN_KEYS} run keys, ${LEDGER_ITEMS} ledger items, ${quarantine.length} quarantined rows (${db.adapter.name}), median of ${ROUNDS} HTTP fetches after one warm-up\n\n` +
      '| view | idem ui | baseline | ratio | target | verdict |\n|---|---|---|---|---|---|\n' +
      `${rows.join('\n')}\n`,
  );
} finally {
  await server?.close();
  await db.close();
  rmSync(tmp, { recursive: true, force: true });
}
