// Figure: the post stage of the PostgreSQL year import: 25,900 invoices sent to the sandbox at a
// fixed latency and concurrency, vs the ideal n × latency / concurrency. Target ≥ 0.9 × ideal.
import { fmtS, tableRow } from './lib/results-table.js';

const TARGET = 0.9;

/** @param {object} ctx the runner's context @returns {Promise<{ rows: object[], notes: string[] }>} */
export async function benchPostThroughput(ctx) {
  const run = await ctx.postgresYearImport();
  const { posted, postMs } = run.split;
  const actualS = postMs / 1000;
  const idealS = (posted * ctx.latencyMs) / ctx.concurrency / 1000;
  const ratio = idealS / actualS;
  const post = Object.values(run.summary.counts.post)[0];
  return {
    rows: [tableRow({
      figure: `post ${posted.toLocaleString('en')} invoices at ${ctx.latencyMs} ms latency, concurrency ${ctx.concurrency} (post stage of the PostgreSQL year import)`,
      idem: `${fmtS(actualS)} (${Math.round(posted / actualS)}/s)`,
      baseline: `${fmtS(idealS)} ideal = n × latency / concurrency (${Math.round(posted / idealS)}/s)`,
      ratio: `${ratio.toFixed(2)} of ideal`,
      target: `≥ ${TARGET} of ideal`,
      ok: ratio >= TARGET,
    })],
    notes: [`- Post: ${post.posted} posted in ${post.attempts} attempts (${post.failed} failed, ${post.review} review); the sandbox API (another process on this machine) used ${run.sandboxCpuSeconds?.toFixed(1) ?? '?'} s of CPU during the whole import.`],
  };
}
