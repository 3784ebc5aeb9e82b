#!/usr/bin/env node
// The benchmark suite: `npm run build && npm run bench` (package.json: node bench/run-benchmarks.js).
//
//   npm run bench                               every figure, then bench/RESULTS.md is rewritten
//   npm run bench -- --only year,noop           some figures (printed; RESULTS.md kept unless --write)
//   npm run bench -- --dialects postgres,sqlite the year import on some dialects only
//
// Figures (one module each, in this order): year (year-import.js), post (post-throughput.js),
// rss (peak-rss.js), noop (noop.js), rerun (rerun-changed.js), knex (knex-baseline.js: the
// hand-written knex script, repeated import rounds), backfill (backfill.js), unsorted
// (unsorted-import.js), year-threads (year-threads.js: the year import with 1 and 2 reading
// threads, IDEM_READ_THREADS), workers (bench-workers.js, another helper's, when present). Every ratio
// compares two figures measured in this same run. Prints ONE table (figure | idem | baseline |
// ratio | target | verdict) and notes.
//
// Settings (environment): BENCH_PG_URL (postgres://postgres@127.0.0.1:5432), BENCH_MYSQL_URL
// (mysql://root@127.0.0.1:3306), BENCH_DATA_DIR (../shared/data/online-retail/by-day from the
// repo), BENCH_LATENCY_MS (10), BENCH_CONCURRENCY (16), BENCH_NOOP_RUNS (11), BENCH_BACKFILL_TIMEOUT_S
// (900: a backfill still running then is stopped and reported with how far it got),
// BENCH_IMPORT_REPEATS (3: rounds of the PostgreSQL import, floor and knex script in `knex`),
// BENCH_READ_THREAD_PAIRS (1: imports with 1 and 2 reading threads in `year-threads`).
// Scratch databases idem_bench_<pid>_* are always dropped; temp files live under os.tmpdir().
// Plain ESM JavaScript on purpose: it runs with `node` as is and never takes part in the tsc build
// or in `npm test`.
import { existsSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { benchBackfill } from './backfill.js';
import { benchKnexBaseline } from './knex-baseline.js';
import { benchNoop } from './noop.js';
import { benchPeakRss } from './peak-rss.js';
import { benchPostThroughput } from './post-throughput.js';
import { benchRerunChanged } from './rerun-changed.js';
import { benchUnsortedImport } from './unsorted-import.js';
import { benchYearImport } from './year-import.js';
import { benchYearThreads } from './year-threads.js';
import { killActiveChildren } from './lib/child-process.js';
import { importWithIdem } from './lib/import-with-idem.js';
import { describeMachine, loadAverage } from './lib/machine.js';
import { formatTable, tableRow } from './lib/results-table.js';
import { startSandboxProcess } from './lib/sandbox-process.js';
import { DIALECTS, SERVERS, ScratchDatabases } from './lib/scratch-databases.js';
import { writeYearFile } from './lib/year-files.js';

const REPO = fileURLToPath(new URL('..', import.meta.url));
const WORKERS_MODULE = path.join(REPO, 'bench', 'bench-workers.js');

const FIGURES = {
  year: benchYearImport,
  post: benchPostThroughput,
  rss: benchPeakRss,
  noop: benchNoop,
  rerun: benchRerunChanged,
  knex: benchKnexBaseline,
  backfill: benchBackfill,
  unsorted: benchUnsortedImport,
  'year-threads': benchYearThreads,
  workers: benchWorkersHook,
};

const log = (message) => process.stderr.write(`[bench ${new Date().toISOString().slice(11, 19)}] ${message}\n`);

/** `--only a,b`, `--dialects x,y`, `--write`. @throws Error naming an unknown figure, dialect or flag. */
function parseArgs(argv) {
  const options = { only: Object.keys(FIGURES), dialects: [...DIALECTS], write: undefined };
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i];
    const list = () => (argv[++i] ?? '').split(',').map((s) => s.trim()).filter(Boolean);
    if (flag === '--only') options.only = list();
    else if (flag === '--dialects') options.dialects = list();
    else if (flag === '--write') options.write = true;
    else throw new Error(`unknown argument ${JSON.stringify(flag)}: use --only ${Object.keys(FIGURES).join(',')}, --dialects ${DIALECTS.join(',')}, --write`);
  }
  for (const f of options.only) if (!(f in FIGURES)) throw new Error(`--only: unknown figure "${f}" (figures: ${Object.keys(FIGURES).join(', ')})`);
  for (const d of options.dialects) if (!DIALECTS.includes(d)) throw new Error(`--dialects: unknown dialect "${d}" (dialects: ${DIALECTS.join(', ')})`);
  if (options.only.length === 0) throw new Error('--only: name at least one figure');
  // A partial run does not overwrite the last full results unless asked to.
  options.write ??= options.only.length === Object.keys(FIGURES).length && options.dialects.length === DIALECTS.length;
  return options;
}

/**
 * The workers figure is another module's (bench/bench-workers.js, `benchWorkers(options) → rows`).
 * HOOK: when that file is missing or does not export `benchWorkers`, the table says so.
 */
async function benchWorkersHook(ctx) {
  if (!existsSync(WORKERS_MODULE)) {
    return { rows: [tableRow({ figure: 'post workers 1 / 2 / 4 (bench/bench-workers.js)', idem: 'not run: bench/bench-workers.js does not exist yet', baseline: '–', ratio: '–', target: 'near-linear until the rate limit' })], notes: [] };
  }
  const mod = await import(pathToFileURL(WORKERS_MODULE).href);
  if (typeof mod.benchWorkers !== 'function') {
    return { rows: [tableRow({ figure: 'post workers (bench/bench-workers.js)', idem: 'not run: bench/bench-workers.js exports no benchWorkers', baseline: '–', ratio: '–', target: '–' })], notes: [] };
  }
  ctx.log('post workers (bench/bench-workers.js) …');
  const result = await mod.benchWorkers({
    repo: ctx.repo, tmp: ctx.tmp, log: ctx.log, pgServerUrl: SERVERS.postgres, dataDir: ctx.dataDir,
    yearFile: ctx.year.file, year: ctx.year, latencyMs: ctx.latencyMs, concurrency: ctx.concurrency,
    idemBin: path.join(ctx.repo, 'bin', 'idem.js'),
  });
  const rawRows = Array.isArray(result) ? result : result?.rows ?? [];
  const notes = Array.isArray(result?.notes) ? result.notes.map((n) => (n.startsWith('- ') ? n : `- ${n}`)) : [];
  const columns = ['figure', 'idem', 'baseline', 'ratio', 'target', 'verdict'];
  const rows = rawRows.map((r) => (Array.isArray(r) ? Object.fromEntries(columns.map((c, i) => [c, r[i] ?? ''])) : { verdict: '–', ...r }));
  return { rows, notes };
}

const firstLine = (error) => String(error?.message ?? error).split('\n')[0].slice(0, 300);

/** The table row of a figure that could not be measured. */
function failedRow(figure, error) {
  return tableRow({ figure, idem: `FAILED: ${firstLine(error)}`, baseline: '–', ratio: '–', target: '–', ok: false });
}

function checkBuild() {
  if (!existsSync(path.join(REPO, 'dist', 'src', 'cli', 'main.js'))) throw new Error('dist/ is missing: run `npm run build` first');
  const src = path.join(REPO, 'pipelines', 'online-retail-invoices.ts');
  const built = path.join(REPO, 'dist', 'pipelines', 'online-retail-invoices.js');
  if (!existsSync(built) || statSync(built).mtimeMs < statSync(src).mtimeMs) {
    log('warning: dist/pipelines/online-retail-invoices.js is older than its source, so idem loads its .ts source instead (slower start-up): run npm run build');
  }
}

let cleanupState = { sandbox: undefined, scratch: undefined, tmp: undefined };

function cleanup() {
  killActiveChildren();
  cleanupState.sandbox?.stop();
  cleanupState.scratch?.dropAll();
  if (cleanupState.tmp) rmSync(cleanupState.tmp, { recursive: true, force: true });
  cleanupState = {};
}

for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
  process.on(signal, () => {
    log(`${signal}: cleaning up`);
    cleanup();
    process.exit(130);
  });
}

async function main() {
  const options = parseArgs(process.argv.slice(2));
  checkBuild();
  const dataDir = path.resolve(REPO, process.env.BENCH_DATA_DIR ?? '../shared/data/online-retail/by-day');
  if (!existsSync(dataDir)) throw new Error(`data directory not found: ${dataDir} (set BENCH_DATA_DIR)`);
  const load = loadAverage();
  const startedAt = new Date();
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'idem-bench-'));
  cleanupState.tmp = tmp;
  const scratch = new ScratchDatabases(tmp, log);
  cleanupState.scratch = scratch;

  const year = writeYearFile(dataDir, path.join(tmp, 'year.csv'));
  log(`${year.file}: ${year.files} files, ${year.lines} lines, ${year.invoices} invoices, ${(year.bytes / 1e6).toFixed(1)} MB`);
  const latencyMs = Number(process.env.BENCH_LATENCY_MS ?? 10);
  const concurrency = Number(process.env.BENCH_CONCURRENCY ?? 16);
  const sandbox = await startSandboxProcess({ idemBin: path.join(REPO, 'bin', 'idem.js'), cwd: REPO, latencyMs });
  cleanupState.sandbox = sandbox;
  log(`sandbox accounting API at ${sandbox.url}, latency ${latencyMs} ms`);

  const ctx = {
    repo: REPO, dataDir, tmp, log, scratch, sandbox, latencyMs, concurrency, year,
    years: { fromYear: Number(year.firstDate.slice(0, 4)), toYear: Number(year.lastDate.slice(0, 4)) },
    dialects: options.dialects,
    noopRuns: Number(process.env.BENCH_NOOP_RUNS ?? 11),
    backfillTimeoutS: Number(process.env.BENCH_BACKFILL_TIMEOUT_S ?? 900),
    failures: [],
    importWithIdem: (dialect, input, name, extraEnv) => importWithIdem(ctx, dialect, input, name, extraEnv),
    importYear: (dialect) => importWithIdem(ctx, dialect, year, `year_${dialect}`),
    postgresYearImport: () => (ctx.pgYear ??= importWithIdem(ctx, 'postgres', year, 'year_postgres')),
  };

  const rows = [];
  const notes = [];
  for (const name of Object.keys(FIGURES).filter((f) => options.only.includes(f))) {
    log(`— ${name}`);
    try {
      const result = await FIGURES[name](ctx);
      rows.push(...result.rows);
      notes.push(...result.notes);
    } catch (error) {
      // One figure failing (e.g. idem exiting 1) must not lose the others: the table says so.
      log(`${name} failed: ${error.stack ?? error}`);
      rows.push(failedRow(name, error));
      ctx.failures.push(`${name}: ${firstLine(error)}`);
    }
  }

  const m = describeMachine();
  const machineLine = `${m.nproc} CPUs (${m.cpu}), ${m.memory} RAM, Node ${m.node}, PostgreSQL ${m.postgres}, MariaDB ${m.mariadb}, ${m.kernel}; load average at start ${load} (other work on this shared machine moves wall times; every ratio is between figures of this run)`;
  const input = `${year.files} daily files of ${path.relative(REPO, dataDir)} (${year.firstDate} … ${year.lastDate}); the year file is all of them concatenated: ${year.lines.toLocaleString('en')} lines, ${year.invoices.toLocaleString('en')} invoices, ${(year.bytes / 1e6).toFixed(1)} MB. Destination: the sandbox API (\`idem sandbox-api\`, another process) at ${latencyMs} ms latency, idem's post concurrency ${concurrency}.`;
  const table = formatTable(rows);
  const failures = ctx.failures.map((f) => `- CHECK FAILED: ${f}`);
  const body = `${table}\n\n${[...failures, ...notes].join('\n')}\n`;
  process.stdout.write(`\n${body}\nmachine: ${machineLine}\n`);
  if (options.write) {
    const when = startedAt.toISOString().replace(/\.\d+Z$/, 'Z');
    const scope = options.only.length === Object.keys(FIGURES).length && options.dialects.length === DIALECTS.length ? '' : ` (partial run: --only ${options.only.join(',')} --dialects ${options.dialects.join(',')})`;
    writeFileSync(path.join(REPO, 'bench', 'RESULTS.md'), `# Benchmark results

Written by \`npm run bench\` (bench/run-benchmarks.js); overwritten by every full run. See bench/README.md.

**${when}**${scope} — ${machineLine}

Input: ${input}

${body}`);
    log('wrote bench/RESULTS.md');
  }
  return ctx.failures.length === 0 ? 0 : 1;
}

let exitCode = 0;
try {
  exitCode = await main();
} catch (error) {
  log(`failed: ${error.stack ?? error}`);
  exitCode = 1;
} finally {
  cleanup();
}
process.exit(exitCode);
