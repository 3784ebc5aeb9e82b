// Figure: a completed run key rerun as a whole CLI process (a logged no-op), median of N, beside
// `node -e 0` (Node start-up alone) and beside a process that only imports the libraries every
// no-op needs (the database client, query builder, validation, logging, arguments, time zones),
// all interleaved so background load hits them alike, after one warm-up round. Target: median ≤ 0.3 s.
import path from 'node:path';
import { mustSucceed, runTimed } from './lib/child-process.js';
import { mustSucceedIdem, runIdem } from './lib/idem-cli.js';
import { singleSummary } from './lib/run-summaries.js';
import { fmtS, tableRow } from './lib/results-table.js';
import { median } from './lib/stats.js';

const TARGET_S = 0.25;

/**
 * What a no-op cannot do without: knex and pg to read `job_runs`, zod and luxon (the pipeline
 * module's row schema and business dates), pino to log the no-op, commander for the arguments.
 */
const NOOP_LIBRARIES = ['knex', 'pg', 'zod', 'luxon', 'pino', 'commander'];
const IMPORT_LIBRARIES = `await Promise.all(${JSON.stringify(NOOP_LIBRARIES)}.map((m) => import(m)))`;

/** @param {object} ctx the runner's context; `ctx.noopRuns` (default 11) @returns {Promise<{ rows: object[], notes: string[] }>} */
export async function benchNoop(ctx) {
  const run = await ctx.postgresYearImport();
  const noops = [];
  const starts = [];
  const imports = [];
  // bin/idem.js turns on Node's module compile cache; the library-only process gets it too (by
  // NODE_COMPILE_CACHE), so the comparison is like for like. One warm-up round (not counted, as
  // hyperfine's --warmup) fills both caches and the OS page cache.
  const importEnv = { ...process.env, NODE_COMPILE_CACHE: path.join(ctx.tmp, 'compile-cache') };
  for (let i = -1; i < ctx.noopRuns; i++) {
    const r = mustSucceedIdem(await runIdem(ctx, ['run', 'online-retail-invoices', '--file', ctx.year.file], run.env, { label: 'noop' }), 'idem run (no-op)');
    singleSummary(r.output, 'noop', `no-op run ${i + 1}`);
    const start = mustSucceed(await runTimed(process.execPath, ['-e', '0'], { logDir: ctx.tmp, label: 'node-e-0' }), 'node -e 0').seconds;
    const libraries = mustSucceed(await runTimed(process.execPath, ['--input-type=module', '-e', IMPORT_LIBRARIES], { env: importEnv, cwd: ctx.repo, logDir: ctx.tmp, label: 'node-import-libraries' }), 'node importing the libraries').seconds;
    if (i < 0) continue;
    noops.push(r.seconds);
    starts.push(start);
    imports.push(libraries);
  }
  const noop = median(noops);
  const start = median(starts);
  const libraries = median(imports);
  return {
    rows: [
      tableRow({
        figure: `no-op: completed run key rerun as a whole CLI process (PostgreSQL), median of ${ctx.noopRuns}`,
        idem: fmtS(noop),
        baseline: `${fmtS(start)} (node -e 0, start-up alone)`,
        ratio: `${(noop / start).toFixed(2)}× start-up`,
        target: `≤ ${TARGET_S} s`,
        ok: noop <= TARGET_S,
      }),
      tableRow({
        figure: `no-op beside node importing only the libraries it needs (${NOOP_LIBRARIES.join(', ')}), median of ${ctx.noopRuns}`,
        idem: fmtS(noop),
        baseline: `${fmtS(libraries)} (node -e 'import(…)' of those ${NOOP_LIBRARIES.length}, with the compile cache)`,
        ratio: `${(noop / libraries).toFixed(2)}×`,
        target: '– (reported)',
        ok: undefined,
      }),
    ],
    notes: [`- No-op runs: ${noops.map((s) => s.toFixed(2)).join(', ')} s; node -e 0: ${starts.map((s) => s.toFixed(2)).join(', ')} s; importing ${NOOP_LIBRARIES.join(', ')} (compile cache on): ${imports.map((s) => s.toFixed(2)).join(', ')} s. What idem adds to its libraries' import is its own modules, the pipeline module, the file's run key (a SHA-256 of the whole file), one connection and two selects.`],
  };
}
