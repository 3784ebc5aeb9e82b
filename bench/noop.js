// Figure: a completed run key rerun as a whole CLI process (a logged no-op), median of N, beside
// `node -e 0` (Node start-up alone), the two interleaved so background load hits both alike.
// Target: median ≤ 0.3 s.
import { mustSucceed, runTimed } from './lib/child-process.js';
import { mustSucceedIdem, runIdem } from './lib/idem-cli.js';
import { singleSummary } from './lib/run-summaries.js';
import { fmtS, tableRow } from './lib/results-table.js';
import { median } from './lib/stats.js';

const TARGET_S = 0.3;

/** @param {object} ctx the runner's context; `ctx.noopRuns` (default 11) @returns {Promise<{ rows: object[], notes: string[] }>} */
export async function benchNoop(ctx) {
  const run = await ctx.postgresYearImport();
  const noops = [];
  const starts = [];
  for (let i = 0; i < ctx.noopRuns; i++) {
    const r = mustSucceedIdem(await runIdem(ctx, ['run', 'online-retail-invoices', '--file', ctx.year.file], run.env, { label: 'noop' }), 'idem run (no-op)');
    singleSummary(r.output, 'noop', `no-op run ${i + 1}`);
    noops.push(r.seconds);
    starts.push(mustSucceed(await runTimed(process.execPath, ['-e', '0'], { logDir: ctx.tmp, label: 'node-e-0' }), 'node -e 0').seconds);
  }
  const noop = median(noops);
  const start = median(starts);
  return {
    rows: [tableRow({
      figure: `no-op: completed run key rerun as a whole CLI process (PostgreSQL), median of ${ctx.noopRuns}`,
      idem: fmtS(noop),
      baseline: `${fmtS(start)} (node -e 0, start-up alone)`,
      ratio: `${(noop / start).toFixed(2)}× start-up`,
      target: `≤ ${TARGET_S} s`,
      ok: noop <= TARGET_S,
    })],
    notes: [`- No-op runs: ${noops.map((s) => s.toFixed(2)).join(', ')} s; node -e 0: ${starts.map((s) => s.toFixed(2)).join(', ')} s.`],
  };
}
