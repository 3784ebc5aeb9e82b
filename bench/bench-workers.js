#!/usr/bin/env node
// Post workers benchmark: one run's post stage shared by 1, 2 and 4 processes
// (`idem run … --workers N`: the run plus N-1 `idem work` children) on PostgreSQL, against the
// sandbox at a fixed latency and a configured rate limit. Throughput should grow near-linearly
// with the processes until the destination's rate limit caps it.
//
//   npm run build && node bench/bench-workers.js
//
// Also called by bench/run-benchmarks.js as `benchWorkers(options)` (figure "workers").
// Settings (environment, standalone): BENCH_PG_URL (postgres://postgres@127.0.0.1:5432),
// BENCH_DATA_DIR (../shared/data/online-retail/by-day), BENCH_WORKERS_DAYS (36 daily files, about
// 3,000 invoices), BENCH_WORKERS_LATENCY_MS (50), BENCH_WORKERS_CONCURRENCY (8 per process),
// BENCH_WORKERS_RATE (400 requests/s at the sandbox), BENCH_WORKERS_COUNTS (1,2,4).
// Plain ESM JavaScript: runs with `node` as is, never part of the tsc build or `npm test`.
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const REPO = fileURLToPath(new URL('..', import.meta.url));
const PIPELINE = 'online-retail-invoices';
const DESTINATION = 'sandbox-accounting';

/** Scaling below this share of min(N × one-process rate, rate limit) is "MISSED". */
const NEAR_LINEAR = 0.8;

const psql = (url, sql) => execFileSync('psql', ['-X', '-q', '-At', '-v', 'ON_ERROR_STOP=1', '-d', url, '-c', sql], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();

/** The first `days` daily files concatenated into one CSV (one header). @returns {{ file: string, days: number }} */
function writeInput(dataDir, days, file) {
  const names = readdirSync(dataDir).filter((f) => f.endsWith('.csv')).sort().slice(0, days);
  const parts = names.map((name, i) => {
    const lines = readFileSync(path.join(dataDir, name), 'utf8').split('\n').filter(Boolean);
    return (i === 0 ? lines : lines.slice(1)).join('\n');
  });
  writeFileSync(file, `${parts.join('\n')}\n`);
  return { file, days: names.length };
}

/** Runs `node bin/idem.js …args`; resolves with its exit code and the JSON log lines (on stderr). */
function idem(idemBin, args, env) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [idemBin, ...args], { cwd: REPO, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (c) => (out += c));
    child.stderr.on('data', (c) => (err += c));
    child.on('error', reject);
    child.on('close', (code) => {
      const logs = err.split('\n').filter((l) => l.startsWith('{"')).flatMap((l) => {
        try {
          return [JSON.parse(l)];
        } catch {
          return [];
        }
      });
      resolve({ code, logs, stderr: err });
    });
  });
}

/** Starts `idem sandbox-api` and sets its latency and rate limit. @returns {Promise<{ url: string, admin(path: string, body?: object): Promise<any>, stop(): void }>} */
async function startSandbox(idemBin, latencyMs, rate) {
  const child = spawn(process.execPath, [idemBin, 'sandbox-api', '--port', '0', '--latency-ms', String(latencyMs)], { cwd: REPO, stdio: ['ignore', 'pipe', 'inherit'] });
  const url = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('the sandbox did not start within 15 s')), 15_000);
    let seen = '';
    child.stdout.on('data', (c) => {
      seen += c;
      const m = /listening on (http:\/\/\S+)/.exec(seen);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]);
      }
    });
  });
  const admin = async (route, body) => {
    const res = await fetch(`${url}${route}`, body === undefined ? { method: 'POST' } : { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    if (!res.ok) throw new Error(`sandbox ${route}: HTTP ${res.status}`);
    return res.json().catch(() => ({}));
  };
  await admin('/_admin/faults', { latencyMs, maxRequestsPerSecond: rate });
  return { url, admin, stop: () => child.kill('SIGTERM') };
}

/**
 * One measurement: a fresh database, `idem run --file INPUT --workers N`, and the post stage's
 * wall time, from the upsert line (posting begins right after it) to the run's summary line (the
 * run ends once the last item is posted, by whichever process).
 */
async function measure({ idemBin, pgServerUrl, sandbox, input, workers, concurrency, log }) {
  const db = `idem_bench_workers_${process.pid}_${workers}`;
  psql(`${pgServerUrl}/postgres`, `create database ${db}`);
  try {
    const env = { ...process.env, DATABASE_URL: `${pgServerUrl}/${db}`, LOG_LEVEL: 'info', IDEM_DESTINATIONS: JSON.stringify({ [DESTINATION]: { url: sandbox.url, http: { concurrency } } }) };
    for (const name of ['IDEM_PROJECT_DIR', 'IDEM_SOURCE_DIR', 'IDEM_FAILPOINTS']) delete env[name];
    const migrated = await idem(idemBin, ['migrate'], env);
    if (migrated.code !== 0) throw new Error(`idem migrate exited ${migrated.code}: ${migrated.stderr.trim().split('\n').at(-1)}`);
    await sandbox.admin('/_admin/reset');
    log(`workers ${workers}: idem run --workers ${workers} …`);
    const run = await idem(idemBin, ['run', PIPELINE, '--file', input.file, '--workers', String(workers)], env);
    const summaries = run.logs.filter((l) => l.stage === 'summary');
    const own = summaries.find((l) => l.worker === undefined);
    if (run.code !== 0 || !own) throw new Error(`idem run --workers ${workers} exited ${run.code}: ${own?.err?.message ?? run.stderr.trim().split('\n').at(-1)}`);
    const upsert = run.logs.find((l) => l.stage === 'upsert' && l.worker === undefined);
    const shares = summaries.map((s) => s.counts?.post?.[DESTINATION]?.posted ?? 0);
    const posted = shares.reduce((a, b) => a + b, 0);
    const stats = await (await fetch(`${sandbox.url}/_admin/stats`)).json();
    if (stats.records !== posted) throw new Error(`workers ${workers}: ${posted} posted but the sandbox holds ${stats.records} records`);
    const duplicates = Object.values(stats.byReference).filter((n) => n !== 1).length;
    if (duplicates > 0) throw new Error(`workers ${workers}: ${duplicates} references at the sandbox more than once`);
    const seconds = (own.time - upsert.time) / 1000;
    return { workers, posted, seconds, rate: posted / seconds, shares, rejected: stats.postRequests - posted };
  } finally {
    psql(`${pgServerUrl}/postgres`, `drop database if exists ${db} with (force)`);
  }
}

/**
 * The post workers figure: 1, 2 and 4 processes posting one run's ~3,000 invoices to the
 * sandbox (PostgreSQL), each process at `concurrency`, beside linear scaling and the rate limit.
 * @param {object} [options] the runner's context (repo, tmp, log, pgServerUrl, dataDir, idemBin); every field optional
 * @returns {Promise<{ rows: object[], notes: string[] }>} rows for the runner's table
 *   (figure | idem | baseline | ratio | target | verdict) and notes.
 * @throws Error when a run fails, or a record reaches the sandbox twice.
 */
export async function benchWorkers(options = {}) {
  const log = options.log ?? ((m) => process.stderr.write(`[bench-workers] ${m}\n`));
  const idemBin = options.idemBin ?? path.join(REPO, 'bin', 'idem.js');
  const pgServerUrl = (options.pgServerUrl ?? process.env.BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432').replace(/\/+$/, '');
  const dataDir = path.resolve(REPO, options.dataDir ?? process.env.BENCH_DATA_DIR ?? '../shared/data/online-retail/by-day');
  const latencyMs = Number(process.env.BENCH_WORKERS_LATENCY_MS ?? 50);
  const concurrency = Number(process.env.BENCH_WORKERS_CONCURRENCY ?? 8);
  const limit = Number(process.env.BENCH_WORKERS_RATE ?? 400);
  const counts = (process.env.BENCH_WORKERS_COUNTS ?? '1,2,4').split(',').map(Number);
  const load = os.loadavg();
  const tmp = mkdtempSync(path.join(options.tmp ?? os.tmpdir(), 'idem-bench-workers-'));
  const sandbox = await startSandbox(idemBin, latencyMs, limit);
  try {
    const input = writeInput(dataDir, Number(process.env.BENCH_WORKERS_DAYS ?? 36), path.join(tmp, 'days.csv'));
    const results = [];
    for (const workers of counts) results.push(await measure({ idemBin, pgServerUrl, sandbox, input, workers, concurrency, log }));
    const one = results.find((r) => r.workers === 1) ?? results[0];
    const ideal1 = (1000 / latencyMs) * concurrency;
    const rows = results.map((r) => {
      const expected = Math.min((r.workers / one.workers) * one.rate, limit);
      const ratio = r.rate / expected;
      return {
        figure: `post workers: ${r.workers} process${r.workers > 1 ? 'es' : ''} (run + ${r.workers - 1} idem work), ${r.posted.toLocaleString('en')} invoices, ${latencyMs} ms latency, concurrency ${concurrency} each, rate limit ${limit}/s`,
        idem: `${r.seconds.toFixed(2)} s (${Math.round(r.rate)}/s; shares ${r.shares.join(' + ')})`,
        baseline: `${Math.round(expected)}/s = min(${r.workers} × ${Math.round(one.rate)}/s measured with 1, limit ${limit}/s)`,
        ratio: `${ratio.toFixed(2)} of linear`,
        target: `≥ ${NEAR_LINEAR} of linear until the rate limit`,
        verdict: r.workers === one.workers ? '–' : ratio >= NEAR_LINEAR ? 'met' : 'MISSED',
      };
    });
    const notes = [
      `- Post workers: one process alone could reach ${Math.round(ideal1)}/s (concurrency ${concurrency} / ${latencyMs} ms); measured ${Math.round(one.rate)}/s. ` +
        `Post stage wall time = upsert log line to the run's summary line (includes starting the idem work children). ` +
        `POST requests beyond one per invoice (429s from the rate limit, waited out): ${results.map((r) => `${r.workers}: ${r.rejected}`).join(', ')}. ` +
        `Load average at start ${load.map((l) => l.toFixed(2)).join(' ')} on ${os.cpus().length} CPUs.`,
    ];
    return { rows, notes };
  } finally {
    sandbox.stop();
    rmSync(tmp, { recursive: true, force: true });
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const { rows, notes } = await benchWorkers();
  const columns = ['figure', 'idem', 'baseline', 'ratio', 'target', 'verdict'];
  const cell = (v) => String(v ?? '').replaceAll('|', '\\|');
  process.stdout.write(
    [`| ${columns.join(' | ')} |`, `|${columns.map(() => '---').join('|')}|`, ...rows.map((r) => `| ${columns.map((c) => cell(r[c])).join(' | ')} |`)].join('\n') + `\n\n${notes.join('\n')}\n`,
  );
}
