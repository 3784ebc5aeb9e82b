#!/usr/bin/env node
// Post benchmark: one year's 25,900 invoices posted to the sandbox accounting API with a fixed
// 10 ms latency at concurrency 16, against the ideal n × latency / concurrency.
//
//   npm run build && npm run bench:post
//
// 1. concatenates the 305 daily files of ../shared/data/online-retail/by-day into one CSV;
// 2. starts the sandbox (`idem sandbox-api --latency-ms 10`) and a throwaway PostgreSQL database;
// 3. times `idem run online-retail-invoices --file year.csv` (child process, peak RSS by
//    /usr/bin/time) and reads the post stage's own duration from the run's summary line;
// 4. reruns it with --force: it must send 0 requests;
// 5. prints posted/s beside the ideal and the ratio (target ≥ 0.9), and the peak RSS (≤ 150 MB).
// Settings: BENCH_PG_URL (default postgres://postgres@127.0.0.1:5432), BENCH_DATA_DIR,
// BENCH_LATENCY_MS (10), BENCH_CONCURRENCY (16).
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const REPO = fileURLToPath(new URL('..', import.meta.url));
const PG_SERVER = (process.env.BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432').replace(/\/+$/, '');
const DATA_DIR = path.resolve(REPO, process.env.BENCH_DATA_DIR ?? '../shared/data/online-retail/by-day');
const LATENCY_MS = Number(process.env.BENCH_LATENCY_MS ?? 10);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 16);
const DB = `idem_bench_post_${process.pid}`;
const psql = (db, sql) => execFileSync('psql', ['-X', '-q', '-At', '-v', 'ON_ERROR_STOP=1', '-d', `${PG_SERVER}/${db}`, '-c', sql], { encoding: 'utf8' }).trim();

function run(args, env) {
  return new Promise((resolve, reject) => {
    const child = spawn('/usr/bin/time', ['-f', '%M', process.execPath, path.join(REPO, 'bin/idem.js'), ...args], { cwd: REPO, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (c) => (out += c));
    child.stderr.on('data', (c) => (err += c));
    child.on('error', reject);
    child.on('close', (code) => {
      const summary = out.split('\n').filter((l) => l.includes('"stage":"summary"')).map((l) => JSON.parse(l)).at(-1);
      resolve({ code, summary, rssMb: Number(err.trim().split('\n').at(-1)) / 1024 });
    });
  });
}

const dir = mkdtempSync(path.join(os.tmpdir(), 'idem-bench-post-'));
const year = path.join(dir, 'year.csv');
const files = readdirSync(DATA_DIR).filter((f) => f.endsWith('.csv')).sort();
writeFileSync(year, `${readFileSync(path.join(DATA_DIR, files[0]), 'utf8').split('\n')[0]}\n`);
for (const file of files) writeFileSync(year, readFileSync(path.join(DATA_DIR, file), 'utf8').split('\n').slice(1).filter(Boolean).join('\n') + '\n', { flag: 'a' });

const sandbox = spawn(process.execPath, [path.join(REPO, 'bin/idem.js'), 'sandbox-api', '--port', '0', '--latency-ms', String(LATENCY_MS)], { cwd: REPO, stdio: ['ignore', 'pipe', 'inherit'] });
const url = await new Promise((resolve) => sandbox.stdout.on('data', (c) => { const m = /listening on (\S+)/.exec(String(c)); if (m) resolve(m[1]); }));
psql('postgres', `create database ${DB}`);
try {
  const env = {
    DATABASE_URL: `${PG_SERVER}/${DB}`,
    IDEM_DESTINATIONS: JSON.stringify({ 'sandbox-accounting': { url, http: { concurrency: CONCURRENCY } } }),
    LOG_LEVEL: 'info',
  };
  if ((await run(['migrate'], env)).code !== 0) throw new Error('migrate failed');
  const first = await run(['run', 'online-retail-invoices', '--file', year], env);
  if (first.code !== 0) throw new Error(`run exited ${first.code}`);
  const post = first.summary.counts.post['sandbox-accounting'];
  const again = await run(['run', 'online-retail-invoices', '--file', year, '--force'], env);
  const rerunSent = again.summary.counts.post['sandbox-accounting'].sent;
  const idealS = (post.posted * LATENCY_MS) / CONCURRENCY / 1000;
  const actualS = post.ms / 1000;
  const rows = [
    ['post 25,900 invoices', `${actualS.toFixed(1)} s (${Math.round(post.posted / actualS)}/s)`, `${idealS.toFixed(1)} s (${Math.round(post.posted / idealS)}/s)`, (idealS / actualS).toFixed(2), '≥ 0.90 of ideal'],
    ['peak RSS of the run', `${first.rssMb.toFixed(0)} MB`, '-', '-', '≤ 150 MB'],
    ['rerun (--force) requests', String(rerunSent), '0', '-', '0'],
  ];
  const table = ['| figure | idem | ideal | ratio | target |', '|---|---|---|---|---|', ...rows.map((r) => `| ${r.join(' | ')} |`)].join('\n');
  process.stdout.write(`${table}\n\n${post.posted} posted in ${post.attempts} attempts at ${LATENCY_MS} ms latency, concurrency ${CONCURRENCY}; whole run ${(first.summary.durationMs / 1000).toFixed(1)} s\n`);
} finally {
  sandbox.kill('SIGTERM');
  psql('postgres', `drop database if exists ${DB} with (force)`);
  rmSync(dir, { recursive: true, force: true });
}
