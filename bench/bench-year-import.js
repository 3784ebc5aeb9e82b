#!/usr/bin/env node
// Year-import benchmark: idem vs. a hand-written psql baseline on local PostgreSQL.
//
//   npm run build && npm run bench        (package.json: "bench": "node bench/bench-year-import.js")
//
// One run measures everything it prints:
//   1. concatenates the 305 daily files of ../shared/data/online-retail/by-day into one CSV;
//   2. creates two throwaway databases idem_bench_<pid>_a / _b (dropped at the end, also on failure);
//   3. idem: `idem migrate`, then times `idem run online-retail-invoices --file year.csv` as a child
//      process (wall time + peak RSS) and checks the target holds one row per invoice. The pipeline
//      posts new invoices to its destination `sandbox-accounting`: the benchmark starts the local
//      sandbox API (`idem sandbox-api`) and points IDEM_DESTINATIONS at it (never at an ambient,
//      possibly real, destination), and reports the run with and without idem's post stage;
//   4. baseline on database b: one psql process doing `\copy lines FROM year.csv` + one
//      `INSERT … SELECT … GROUP BY invoice_no ON CONFLICT … DO UPDATE … WHERE … IS DISTINCT FROM …`;
//   5. the no-op: the same idem run again (completed run key), 5 times, median; and `node -e 0`;
//   6. prints one table and writes it, dated, with the machine, to bench/RESULTS.md.
//
// Settings (environment): BENCH_PG_URL (server, default postgres://postgres@127.0.0.1:5432),
// BENCH_DATA_DIR (default ../shared/data/online-retail/by-day from the repo), BENCH_NOOP_RUNS (5).
// Plain ESM JavaScript on purpose: it runs with `node` as is and never takes part in the tsc build.

import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, openSync, closeSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const REPO = fileURLToPath(new URL('..', import.meta.url));
const PG_SERVER = (process.env.BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432').replace(/\/+$/, '');
const DATA_DIR = path.resolve(REPO, process.env.BENCH_DATA_DIR ?? '../shared/data/online-retail/by-day');
const NOOP_RUNS = Number(process.env.BENCH_NOOP_RUNS ?? 5);
const PIPELINE = 'online-retail-invoices';
const HEADER = 'InvoiceNo,StockCode,Description,Quantity,InvoiceDate,UnitPrice,CustomerID,Country';
const TARGETS = { importRatio: 1.5, noopSeconds: 0.3, rssMb: 150 };
const TIME_BIN = '/usr/bin/time';

const dbUrl = (name) => `${PG_SERVER}/${name}`;
const ADMIN_URL = dbUrl('postgres');
const DB_A = `idem_bench_${process.pid}_a`;
const DB_B = `idem_bench_${process.pid}_b`;

// ---------------------------------------------------------------------------------------------
// helpers

function log(message) {
  process.stderr.write(`[bench] ${message}\n`);
}

/** Runs psql synchronously (setup, checks, cleanup; never timed). Returns trimmed unaligned output. */
function psql(url, sql) {
  return execFileSync('psql', ['-X', '-q', '-At', '-v', 'ON_ERROR_STOP=1', '-d', url, '-c', sql], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();
}

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/** Peak RSS of a child: GNU time's %M (KiB) when present, else polling /proc/<pid>/status VmHWM. */
const useGnuTime = existsSync(TIME_BIN);

/**
 * Runs a command as a child process with stdout/stderr to files and returns its wall time
 * (spawn → exit), peak RSS in KiB (when `measureRss`), exit code and output.
 */
async function timed(command, args, { env = process.env, cwd = REPO, logFile, measureRss = false } = {}) {
  const out = logFile ?? path.join(tmp, `child-${Date.now()}-${Math.random().toString(16).slice(2)}.log`);
  const rssFile = `${out}.rss`;
  const fd = openSync(out, 'w');
  const [bin, argv] = measureRss && useGnuTime ? [TIME_BIN, ['-f', '%M', '-o', rssFile, command, ...args]] : [command, args];
  let hwmKb = 0;
  const started = performance.now();
  const child = spawn(bin, argv, { cwd, env, stdio: ['ignore', fd, fd] });
  let poll;
  if (measureRss && !useGnuTime) {
    const sample = () => {
      try {
        const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'));
        if (m) hwmKb = Math.max(hwmKb, Number(m[1]));
      } catch { /* exited */ }
    };
    sample();
    poll = setInterval(sample, 20);
  }
  const code = await new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('exit', (c, signal) => resolve(c ?? `signal ${signal}`));
  });
  const seconds = (performance.now() - started) / 1000;
  clearInterval(poll);
  closeSync(fd);
  const output = readFileSync(out, 'utf8');
  let rssKb;
  if (measureRss) {
    if (useGnuTime) {
      const text = existsSync(rssFile) ? readFileSync(rssFile, 'utf8').trim().split('\n') : [];
      rssKb = Number(text.at(-1)); // GNU time prefixes "Command exited with non-zero status" when it fails
    } else rssKb = hwmKb;
  }
  return { code, seconds, rssKb, output };
}

function must(result, what) {
  if (result.code !== 0) {
    throw new Error(`${what} exited with ${result.code}; last output:\n${result.output.split('\n').slice(-15).join('\n')}`);
  }
  return result;
}

/** The `stage: summary` log line of an idem run (pino JSON on stdout). */
function summaryOf(output) {
  for (const line of output.split('\n').reverse()) {
    if (!line.startsWith('{')) continue;
    try {
      const entry = JSON.parse(line);
      if (entry.stage === 'summary') return entry;
    } catch { /* not JSON */ }
  }
  return undefined;
}

const fmtS = (s) => `${s.toFixed(2)} s`;
const fmtMb = (kb) => `${(kb / 1024).toFixed(0)} MB`;

// ---------------------------------------------------------------------------------------------
// 1. one year file

function concatenateYear(dir, outFile) {
  const files = readdirSync(dir).filter((f) => f.endsWith('.csv')).sort();
  if (files.length === 0) throw new Error(`no .csv files in ${dir}`);
  const out = [];
  let lines = 0;
  const invoices = new Set();
  for (const file of files) {
    let text = readFileSync(path.join(dir, file), 'utf8');
    if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    const eol = text.indexOf('\n');
    const header = (eol < 0 ? text : text.slice(0, eol)).replace(/\r$/, '');
    if (header !== HEADER) throw new Error(`${file}: unexpected header ${JSON.stringify(header)}`);
    let body = eol < 0 ? '' : text.slice(eol + 1);
    if (body.length > 0 && !body.endsWith('\n')) body += '\n';
    // Data lines of these files hold no quoted newlines (checked by the line count vs. idem's extract count).
    for (let i = 0; i < body.length; ) {
      const end = body.indexOf('\n', i);
      const line = body.slice(i, end);
      if (line.trim() !== '') {
        lines += 1;
        invoices.add(line.slice(0, line.indexOf(',')));
      }
      i = end + 1;
    }
    out.push(body);
  }
  const content = `${HEADER}\n${out.join('')}`;
  writeFileSync(outFile, content);
  return { files: files.length, lines, invoices: invoices.size, bytes: Buffer.byteLength(content) };
}

// ---------------------------------------------------------------------------------------------
// 4. the hand-written baseline

const BASELINE_SETUP = `
create table lines (
  ln bigserial primary key,            -- input order, for "first line" and the lines array
  invoice_no text not null,
  stock_code text not null,
  description text not null,
  quantity integer not null,
  invoice_date timestamp not null,     -- Europe/London wall time, as in the files
  unit_price numeric not null,         -- keeps the file's scale, so ::text gives the file's text
  customer_id text,
  country text not null
);
create table online_retail_invoices (
  id bigserial primary key,
  source_system varchar(200) not null,
  source_reference varchar(200) not null,
  document_type text not null,
  customer_id text,
  country text not null,
  invoiced_at timestamp(3) with time zone not null,
  line_count bigint not null,
  total numeric(14,3) not null,
  lines text not null,
  row_hash varchar(64) not null,
  first_run_key varchar(200) not null,
  last_changed_run_key varchar(200) not null,
  created_at timestamp(3) with time zone not null,
  updated_at timestamp(3) with time zone not null,
  constraint online_retail_invoices_key_uq unique (source_system, source_reference)
);`;

function baselineScript(yearFile) {
  const quotedFile = `'${yearFile.replaceAll("'", "''")}'`;
  return `\\set ON_ERROR_STOP on
\\timing on
begin;
truncate lines restart identity;
\\copy lines (invoice_no, stock_code, description, quantity, invoice_date, unit_price, customer_id, country) from ${quotedFile} with (format csv, header true, force_not_null (stock_code, description, country))
insert into online_retail_invoices as t
  (source_system, source_reference, document_type, customer_id, country, invoiced_at, line_count, total, lines,
   row_hash, first_run_key, last_changed_run_key, created_at, updated_at)
select 'online-retail', g.invoice_no, g.document_type, g.customer_id, g.country, g.invoiced_at, g.line_count, g.total, g.lines,
       md5(concat_ws('|', 'online-retail', g.invoice_no, g.document_type, coalesce(g.customer_id, '\\N'), g.country,
                     g.invoiced_at::text, g.line_count::text, g.total::text, g.lines)),
       'baseline', 'baseline', now(), now()
from (
  select invoice_no,
         case when invoice_no like 'C%' then 'credit_note' else 'invoice' end as document_type,
         (array_agg(nullif(regexp_replace(customer_id, '\\.0+$', ''), '') order by ln))[1] as customer_id,
         (array_agg(country order by ln))[1] as country,
         (min(invoice_date) at time zone 'Europe/London') as invoiced_at,
         count(*) as line_count,
         sum(quantity * unit_price)::numeric(14,3) as total,
         json_agg(json_build_object(
           'stock_code', stock_code, 'description', description, 'quantity', quantity,
           'unit_price', unit_price::text, 'amount', (quantity * unit_price)::numeric(14,3)::text) order by ln)::text as lines
  from lines
  group by invoice_no
) g
on conflict (source_system, source_reference) do update set
  document_type = excluded.document_type, customer_id = excluded.customer_id, country = excluded.country,
  invoiced_at = excluded.invoiced_at, line_count = excluded.line_count, total = excluded.total, lines = excluded.lines,
  row_hash = excluded.row_hash, last_changed_run_key = excluded.last_changed_run_key, updated_at = excluded.updated_at
where (t.document_type, t.customer_id, t.country, t.invoiced_at, t.line_count, t.total, t.lines, t.row_hash)
      is distinct from
      (excluded.document_type, excluded.customer_id, excluded.country, excluded.invoiced_at, excluded.line_count,
       excluded.total, excluded.lines, excluded.row_hash);
commit;
`;
}

/** One fingerprint of the business content of a target table (lines compared as jsonb, so formatting does not count). */
const FINGERPRINT_SQL = `
select count(*) || ' rows, md5 ' || md5(string_agg(concat_ws('|', source_reference, document_type, coalesce(customer_id, '\\N'), country,
  to_char(invoiced_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS'), line_count, total, lines::jsonb::text), E'\\n' order by source_reference))
from online_retail_invoices`;

// ---------------------------------------------------------------------------------------------
// machine

function machine() {
  let pgVersion = 'unknown';
  try {
    pgVersion = psql(ADMIN_URL, 'show server_version');
  } catch { /* reported as unknown */ }
  let nproc = String(os.availableParallelism());
  try {
    nproc = execFileSync('nproc', { encoding: 'utf8' }).trim();
  } catch { /* os value */ }
  return {
    nproc,
    cpu: os.cpus()[0]?.model ?? 'unknown',
    memory: `${(os.totalmem() / 1024 ** 3).toFixed(1)} GiB`,
    node: process.version,
    postgres: pgVersion,
    os: `${os.type()} ${os.release()}`,
  };
}

// ---------------------------------------------------------------------------------------------
// the local sandbox accounting API (the pipeline's post destination)

let sandbox;

/** Starts `idem sandbox-api --port 0` and waits for its URL; undefined (with a warning) if it cannot. */
async function startSandbox(idemBin) {
  const child = spawn(process.execPath, [idemBin, 'sandbox-api', '--port', '0'], { cwd: REPO, stdio: ['ignore', 'pipe', 'pipe'] });
  sandbox = child;
  let output = '';
  const url = await new Promise((resolve) => {
    const timer = setTimeout(() => resolve(undefined), 15_000);
    const onData = (data) => {
      output += data;
      const m = /listening on (http:\/\/\S+)/.exec(output);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]);
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.on('exit', () => {
      clearTimeout(timer);
      resolve(undefined);
    });
  });
  child.stdout.resume();
  child.stderr.resume();
  if (!url) {
    log(`warning: the sandbox API did not start (${output.trim().split('\n').at(-1) ?? 'no output'}); running without IDEM_DESTINATIONS`);
    stopSandbox();
  }
  return url;
}

function stopSandbox() {
  if (sandbox && sandbox.exitCode === null && sandbox.signalCode === null) sandbox.kill('SIGTERM');
  sandbox = undefined;
}

/** CPU seconds (user + system) a process has used so far, from /proc; undefined elsewhere. */
const CLK_TCK = (() => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  } catch {
    return 100;
  }
})();
function cpuSeconds(pid) {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').replace(/^.*\) /, '').split(' ');
    return (Number(fields[11]) + Number(fields[12])) / CLK_TCK; // utime, stime (fields 14, 15 of stat)
  } catch {
    return undefined;
  }
}

// ---------------------------------------------------------------------------------------------
// main

let tmp;
let loadAtStart;
let createdDbs = [];

function cleanup() {
  stopSandbox();
  for (const db of createdDbs) {
    try {
      psql(ADMIN_URL, `drop database if exists "${db}" with (force)`);
      log(`dropped database ${db}`);
    } catch (error) {
      log(`could not drop database ${db}: ${error.message}`);
    }
  }
  createdDbs = [];
  if (tmp) {
    rmSync(tmp, { recursive: true, force: true });
    tmp = undefined;
  }
}

for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
  process.on(signal, () => {
    log(`${signal}: cleaning up`);
    cleanup();
    process.exit(130);
  });
}

async function main() {
  const idemBin = path.join(REPO, 'bin', 'idem.js');
  if (!existsSync(path.join(REPO, 'dist', 'src', 'cli', 'main.js'))) throw new Error('dist/ is missing: run `npm run build` first');
  const pipelineSrc = path.join(REPO, 'pipelines', `${PIPELINE}.ts`);
  const pipelineBuilt = path.join(REPO, 'dist', 'pipelines', `${PIPELINE}.js`);
  if (!existsSync(pipelineBuilt) || statSync(pipelineBuilt).mtimeMs < statSync(pipelineSrc).mtimeMs) {
    log(`warning: dist/pipelines/${PIPELINE}.js is older than its source, so idem loads it through tsx (slower start-up): run npm run build`);
  }
  if (!existsSync(DATA_DIR)) throw new Error(`data directory not found: ${DATA_DIR} (set BENCH_DATA_DIR)`);

  loadAtStart = os.loadavg().map((l) => l.toFixed(2)).join(' ');
  tmp = mkdtempSync(path.join(os.tmpdir(), 'idem-bench-'));
  const yearFile = path.join(tmp, 'year.csv');

  // 1.
  log(`concatenating ${DATA_DIR} …`);
  const year = concatenateYear(DATA_DIR, yearFile);
  log(`${yearFile}: ${year.files} files, ${year.lines} data lines, ${year.invoices} invoice numbers, ${(year.bytes / 1e6).toFixed(1)} MB`);

  // 2.
  for (const db of [DB_A, DB_B]) {
    psql(ADMIN_URL, `create database "${db}"`);
    createdDbs.push(db);
  }
  log(`created databases ${DB_A}, ${DB_B}`);

  // 3. idem import
  const idemEnv = { ...process.env, DATABASE_URL: dbUrl(DB_A) };
  delete idemEnv.IDEM_PROJECT_DIR;
  delete idemEnv.IDEM_SOURCE_DIR;
  delete idemEnv.IDEM_DESTINATIONS;
  const sandboxUrl = await startSandbox(idemBin);
  if (sandboxUrl) {
    idemEnv.IDEM_DESTINATIONS = JSON.stringify({ 'sandbox-accounting': { url: sandboxUrl } });
    log(`sandbox accounting API at ${sandboxUrl}`);
  }
  must(await timed(process.execPath, [idemBin, 'migrate'], { env: idemEnv }), 'idem migrate');
  log('idem import …');
  const sandboxCpuBefore = sandbox ? cpuSeconds(sandbox.pid) : undefined;
  const idemImport = must(
    await timed(process.execPath, [idemBin, 'run', PIPELINE, '--file', yearFile], { env: idemEnv, measureRss: true, logFile: path.join(tmp, 'idem-import.log') }),
    'idem run (import)',
  );
  const sandboxCpuAfter = sandbox ? cpuSeconds(sandbox.pid) : undefined;
  const sandboxCpu = sandboxCpuBefore !== undefined && sandboxCpuAfter !== undefined ? sandboxCpuAfter - sandboxCpuBefore : undefined;
  const importSummary = summaryOf(idemImport.output);
  if (importSummary?.outcome !== 'completed') throw new Error(`idem import: expected outcome completed, got ${importSummary?.outcome}`);
  const extracted = importSummary.counts?.extract?.rows;
  if (extracted !== year.lines) throw new Error(`idem extracted ${extracted} rows, the file has ${year.lines} data lines`);
  const idemRows = Number(psql(dbUrl(DB_A), 'select count(*) from online_retail_invoices'));
  if (idemRows !== year.invoices) throw new Error(`idem target holds ${idemRows} rows, expected ${year.invoices}`);
  const postMs = Object.values(importSummary.counts?.post ?? {}).reduce((sum, c) => sum + (c.ms ?? 0), 0);
  const posted = Object.values(importSummary.counts?.post ?? {}).reduce((sum, c) => sum + (c.posted ?? 0), 0);
  const withoutPost = idemImport.seconds - postMs / 1000;
  log(`idem import: ${fmtS(idemImport.seconds)} (post stage ${fmtS(postMs / 1000)}, ${posted} posted), peak RSS ${fmtMb(idemImport.rssKb)}, ${idemRows} rows`);

  // 4. baseline
  psql(dbUrl(DB_B), BASELINE_SETUP);
  const scriptFile = path.join(tmp, 'baseline.sql');
  writeFileSync(scriptFile, baselineScript(yearFile));
  log('baseline import …');
  const baseline = must(
    await timed('psql', ['-X', '-q', '-d', dbUrl(DB_B), '-f', scriptFile], { measureRss: true, logFile: path.join(tmp, 'baseline.log') }),
    'baseline psql',
  );
  const baselineRows = Number(psql(dbUrl(DB_B), 'select count(*) from online_retail_invoices'));
  if (baselineRows !== year.invoices) throw new Error(`baseline target holds ${baselineRows} rows, expected ${year.invoices}`);
  // \timing prints one "Time:" per statement: begin, truncate, \copy, insert, commit.
  const statementMs = [...baseline.output.matchAll(/^Time: ([\d.]+) ms/gm)].map((m) => Number(m[1]));
  const baselineSplit = statementMs.length === 5 ? { copyMs: Math.round(statementMs[2]), insertMs: Math.round(statementMs[3]) } : undefined;
  log(`baseline import: ${fmtS(baseline.seconds)}, ${baselineRows} rows${baselineSplit ? ` (\\copy ${baselineSplit.copyMs} ms, insert ${baselineSplit.insertMs} ms)` : ''}`);
  const fpIdem = psql(dbUrl(DB_A), FINGERPRINT_SQL);
  const fpBaseline = psql(dbUrl(DB_B), FINGERPRINT_SQL);
  const sameContent = fpIdem === fpBaseline;
  log(`content ${sameContent ? 'identical' : 'DIFFERS'}: idem ${fpIdem} / baseline ${fpBaseline}`);

  // 5. no-op and node start-up
  const noops = [];
  for (let i = 0; i < NOOP_RUNS; i++) {
    const r = must(await timed(process.execPath, [idemBin, 'run', PIPELINE, '--file', yearFile], { env: idemEnv }), 'idem run (no-op)');
    const outcome = summaryOf(r.output)?.outcome;
    if (outcome !== 'noop') throw new Error(`no-op run ${i + 1}: expected outcome noop, got ${outcome}`);
    noops.push(r.seconds);
  }
  const starts = [];
  for (let i = 0; i < NOOP_RUNS; i++) starts.push(must(await timed(process.execPath, ['-e', '0']), 'node -e 0').seconds);
  const noopMedian = median(noops);
  const startMedian = median(starts);
  log(`no-op: ${noops.map(fmtS).join(', ')}; node -e 0: ${starts.map(fmtS).join(', ')}`);

  // 6. table
  const ratio = idemImport.seconds / baseline.seconds;
  const ratioWithoutPost = withoutPost / baseline.seconds;
  const baselineCell = `${fmtS(baseline.seconds)} (psql \\copy + INSERT … GROUP BY … ON CONFLICT)`;
  const verdict = (ok) => (ok ? 'met' : 'MISSED');
  const rows = [
    ['figure', 'idem', 'baseline', 'ratio idem/baseline', 'target', 'verdict'],
    [
      `year import, wall time of the whole \`idem run\` (${year.lines.toLocaleString('en')} lines → ${year.invoices.toLocaleString('en')} invoices${postMs > 0 ? `; includes posting ${posted.toLocaleString('en')} invoices to the local sandbox API` : ''})`,
      fmtS(idemImport.seconds), baselineCell,
      `${ratio.toFixed(2)}×`, `≤ ${TARGETS.importRatio}×`, verdict(ratio <= TARGETS.importRatio),
    ],
    ...(postMs > 0
      ? [[
          'year import without the post stage (the same run minus its post stage\'s ms; the baseline does not post)',
          fmtS(withoutPost), baselineCell,
          `${ratioWithoutPost.toFixed(2)}×`, `≤ ${TARGETS.importRatio}×`, verdict(ratioWithoutPost <= TARGETS.importRatio),
        ]]
      : []),
    [
      `no-op rerun, median of ${NOOP_RUNS}`,
      fmtS(noopMedian), `${fmtS(startMedian)} (node -e 0, start-up alone)`,
      `${(noopMedian / startMedian).toFixed(2)}× start-up`, `≤ ${TARGETS.noopSeconds} s`, verdict(noopMedian <= TARGETS.noopSeconds),
    ],
    [
      'peak RSS of the import',
      fmtMb(idemImport.rssKb), `${fmtMb(baseline.rssKb)} (psql client; the work is in the server)`,
      '–', `≤ ${TARGETS.rssMb} MB`, verdict(idemImport.rssKb / 1024 <= TARGETS.rssMb),
    ],
  ];
  const table = [
    `| ${rows[0].join(' | ')} |`,
    `|${rows[0].map(() => '---').join('|')}|`,
    ...rows.slice(1).map((r) => `| ${r.join(' | ')} |`),
  ].join('\n');

  const m = { ...machine(), load: loadAtStart };
  const stage = importSummary.counts?.stage?.ms;
  const upsert = importSummary.counts?.upsert?.ms;
  const notes = [
    `- idem's own split of the import (from its summary log): extract + stage ${stage} ms, upsert ${upsert} ms, post ${postMs} ms, run total ${importSummary.durationMs} ms; the rest of the wall time is start-up, run-key hashing, lock and job_runs.`,
    ...(sandboxCpu !== undefined && postMs > 0 ? [`- The sandbox API (another process on the same machine) used ${sandboxCpu.toFixed(1)} s of CPU during the import.`] : []),
    `- Baseline split (psql \\timing): ${baselineSplit ? `\\copy ${baselineSplit.copyMs} ms, INSERT … GROUP BY … ON CONFLICT ${baselineSplit.insertMs} ms` : 'not available'}.`,
    `- Content check (business columns, lines compared as jsonb): ${sameContent ? 'idem and the baseline wrote identical rows' : `DIFFERS — idem ${fpIdem}, baseline ${fpBaseline}`}.`,
    `- No-op runs: ${noops.map(fmtS).join(', ')}; node -e 0: ${starts.map(fmtS).join(', ')}.`,
    `- Peak RSS: ${useGnuTime ? 'GNU time %M' : '/proc/<pid>/status VmHWM, polled every 20 ms'}.`,
  ].join('\n');
  const when = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
  const machineLine = `${m.nproc} CPUs (${m.cpu}), ${m.memory} RAM, Node ${m.node}, PostgreSQL ${m.postgres}, ${m.os}; load average at start ${m.load} (other work on the machine skews wall times)`;

  process.stdout.write(`\n${table}\n\n${notes}\n\nmachine: ${machineLine}\n`);
  const results = `# Benchmark results

Written by \`npm run bench\` (bench/bench-year-import.js); overwritten on every run. See bench/README.md.

**${when}** — ${machineLine}

Input: ${year.files} daily files of ${path.relative(REPO, DATA_DIR)} concatenated into one file, ${year.lines.toLocaleString('en')} lines, ${year.invoices.toLocaleString('en')} invoices, ${(year.bytes / 1e6).toFixed(1)} MB.

${table}

${notes}
`;
  writeFileSync(path.join(REPO, 'bench', 'RESULTS.md'), results);
  log('wrote bench/RESULTS.md');
}

let exitCode = 0;
try {
  await main();
} catch (error) {
  log(`failed: ${error.stack ?? error}`);
  exitCode = 1;
} finally {
  cleanup();
}
process.exit(exitCode);
