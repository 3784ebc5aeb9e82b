// Figure: the post stage of the PostgreSQL year import: 25,900 invoices sent to the sandbox at a
// fixed latency and concurrency, vs the ideal n × latency / concurrency. Target ≥ 0.9 × ideal.
// Beside it, the hand-written post floor (bench/floors/post-floor.js): the same invoices sent to
// the same sandbox at the same concurrency by a bare undici loop with no database work, which
// shows how much of the gap to the ideal is this machine's and how much is idem's. Target (issue
// 18) ≥ 0.95 of the floor.
//
// One import and one floor differ by more than that target's margin from run to run on a shared
// machine, so the pair is repeated BENCH_POST_REPEATS (3) times, interleaved (idem's import, then
// the floor on what it wrote), each round on a fresh database; the target rows use the medians.
import { runBenchScript } from './lib/child-process.js';
import { fmtS, tableRow } from './lib/results-table.js';
import { median, spread } from './lib/stats.js';

const TARGET_IDEAL = 0.9;
const TARGET_FLOOR = 0.95;

/** One round: idem's post stage (from `run`, an import already done) and the post floor after it. */
async function postRound(ctx, run) {
  const { posted, postMs } = run.split;
  await ctx.sandbox.reset();
  ctx.log(`post floor: ${posted} invoices, bare undici, concurrency ${ctx.concurrency} …`);
  const { result: floor } = await runBenchScript(ctx, 'floors/post-floor.js', [run.databaseUrl, ctx.sandbox.url, String(ctx.concurrency)], 'the post floor');
  if (floor.posted !== posted || floor.failed !== 0) ctx.failures.push(`post floor: ${floor.posted} posted, ${floor.failed} failed; expected ${posted}, 0`);
  ctx.log(`post: idem ${fmtS(postMs / 1000)}, floor ${fmtS(floor.ms / 1000)} (${(floor.ms / postMs).toFixed(2)} of the floor)`);
  return { run, posted, idemS: postMs / 1000, floorS: floor.ms / 1000 };
}

/** @param {object} ctx the runner's context @returns {Promise<{ rows: object[], notes: string[] }>} */
export async function benchPostThroughput(ctx) {
  const repeats = Math.max(1, Number(process.env.BENCH_POST_REPEATS ?? 3));
  const rounds = [];
  for (let i = 1; i <= repeats; i++) {
    const run = i === 1 ? await ctx.postgresYearImport() : await ctx.importWithIdem('postgres', ctx.year, `year_post_r${i}`);
    rounds.push(await postRound(ctx, run));
  }
  const { posted } = rounds[0];
  const idealS = (posted * ctx.latencyMs) / ctx.concurrency / 1000;
  const idemS = median(rounds.map((r) => r.idemS));
  const floorS = median(rounds.map((r) => r.floorS));
  const ofIdeal = rounds.map((r) => idealS / r.idemS);
  const ofFloor = rounds.map((r) => r.floorS / r.idemS);
  const fmtOf = (ratio) => ratio.toFixed(2);
  const post = Object.values(rounds[0].run.summary.counts.post)[0];
  const figure = `post ${posted.toLocaleString('en')} invoices at ${ctx.latencyMs} ms latency, concurrency ${ctx.concurrency} (post stage of the PostgreSQL year import)`;
  return {
    rows: [
      tableRow({
        figure: `${figure}, median of ${rounds.length}`,
        idem: `${fmtS(idemS)} (${Math.round(posted / idemS)}/s)`,
        baseline: `${fmtS(idealS)} ideal = n × latency / concurrency (${Math.round(posted / idealS)}/s)`,
        ratio: `${spread(ofIdeal, fmtOf)} of ideal`,
        target: `≥ ${TARGET_IDEAL} of ideal`,
        ok: median(ofIdeal) >= TARGET_IDEAL,
      }),
      tableRow({
        figure: `${figure}, beside the post floor in the same round, median of ${rounds.length}`,
        idem: `${fmtS(idemS)} (${Math.round(posted / idemS)}/s)`,
        baseline: `${fmtS(floorS)} (${Math.round(posted / floorS)}/s, ${(idealS / floorS).toFixed(2)} of ideal): the same bodies by a bare undici loop, no database (bench/floors/post-floor.js)`,
        ratio: `${spread(ofFloor, fmtOf)} of the floor`,
        target: `≥ ${TARGET_FLOOR} of the floor`,
        ok: median(ofFloor) >= TARGET_FLOOR,
      }),
    ],
    notes: [`- Post: ${post.posted} posted in ${post.attempts} attempts (${post.failed} failed, ${post.review} review) in the first round; the sandbox API (another process on this machine) used ${rounds[0].run.sandboxCpuSeconds?.toFixed(1) ?? '?'} s of CPU during that whole import. The post floor reads the invoices idem wrote (untimed), then times only its sends: one POST with an Idempotency-Key each, every answer read and parsed. Rounds (idem / floor): ${rounds.map((r) => `${fmtS(r.idemS)} / ${fmtS(r.floorS)}`).join(', ')}.`],
  };
}
