// Figure: the post stage of the PostgreSQL year import: 25,900 invoices sent to the sandbox at a
// fixed latency and concurrency, vs the ideal n × latency / concurrency. Target ≥ 0.9 × ideal.
// Beside it, the hand-written post floor (bench/floors/post-floor.js): the same invoices sent to
// the same sandbox at the same concurrency by a bare undici loop with no database work, which
// shows how much of the gap to the ideal is this machine's and how much is idem's.
import { runBenchScript } from './lib/child-process.js';
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

  await ctx.sandbox.reset();
  ctx.log(`post floor: ${posted} invoices, bare undici, concurrency ${ctx.concurrency} …`);
  const { result: floor } = await runBenchScript(ctx, 'floors/post-floor.js', [run.databaseUrl, ctx.sandbox.url, String(ctx.concurrency)], 'the post floor');
  if (floor.posted !== posted || floor.failed !== 0) ctx.failures.push(`post floor: ${floor.posted} posted, ${floor.failed} failed; expected ${posted}, 0`);
  const floorS = floor.ms / 1000;
  const figure = `post ${posted.toLocaleString('en')} invoices at ${ctx.latencyMs} ms latency, concurrency ${ctx.concurrency} (post stage of the PostgreSQL year import)`;
  return {
    rows: [
      tableRow({
        figure,
        idem: `${fmtS(actualS)} (${Math.round(posted / actualS)}/s)`,
        baseline: `${fmtS(idealS)} ideal = n × latency / concurrency (${Math.round(posted / idealS)}/s)`,
        ratio: `${ratio.toFixed(2)} of ideal`,
        target: `≥ ${TARGET} of ideal`,
        ok: ratio >= TARGET,
      }),
      tableRow({
        figure: `${figure}, beside the post floor`,
        idem: `${fmtS(actualS)} (${Math.round(posted / actualS)}/s)`,
        baseline: `${fmtS(floorS)} (${Math.round(posted / floorS)}/s, ${(idealS / floorS).toFixed(2)} of ideal): the same bodies by a bare undici loop, no database (bench/floors/post-floor.js)`,
        ratio: `${(floorS / actualS).toFixed(2)} of the floor`,
        target: '– (reported)',
      }),
    ],
    notes: [`- Post: ${post.posted} posted in ${post.attempts} attempts (${post.failed} failed, ${post.review} review); the sandbox API (another process on this machine) used ${run.sandboxCpuSeconds?.toFixed(1) ?? '?'} s of CPU during the whole import. The post floor reads the invoices idem wrote (untimed), then times only its sends: one POST with an Idempotency-Key each, every answer read and parsed.`],
  };
}
