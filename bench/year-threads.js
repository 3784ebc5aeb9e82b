// Figure (issue 29, lever 2, "Reading on another core"): the year import with one reading thread
// (IDEM_READ_THREADS=1: the run's thread reads, parses and validates the CSV file between its
// database work) and with two (IDEM_READ_THREADS=2: a worker thread reads while the run's thread
// stages), in one bench run, on the first of --dialects (PostgreSQL unless narrowed). Reported,
// no target yet: it decides IDEM_READ_THREADS's default (src/config/load-config.ts,
// DEFAULT_READ_THREADS). The pairs alternate their order (1 then 2, 2 then 1, …) so a load that
// drifts during the run does not favour one side; BENCH_READ_THREAD_PAIRS sets how many (1).
import { contentFingerprint } from './lib/content-fingerprint.js';
import { fmtMb, fmtS, fmtX, tableRow } from './lib/results-table.js';
import { median } from './lib/stats.js';

/**
 * @param {object} ctx the runner's context; `ctx.dialects[0]` is the dialect measured
 * @returns {Promise<{ rows: object[], notes: string[] }>}
 */
export async function benchYearThreads(ctx) {
  const dialect = ctx.dialects[0];
  const pairs = Number(process.env.BENCH_READ_THREAD_PAIRS ?? 1);
  const runs = { 1: [], 2: [] };
  for (let pair = 0; pair < pairs; pair++) {
    for (const threads of pair % 2 === 0 ? [1, 2] : [2, 1]) {
      const run = await ctx.importWithIdem(dialect, ctx.year, `year_threads_${threads}_${pair}`, { IDEM_READ_THREADS: String(threads) });
      runs[threads].push({ ...run, reads: readsOnThreads(run.output) });
    }
  }
  const [one, two] = [runs[1], runs[2]];
  const prints = [await contentFingerprint(one[0].databaseUrl), await contentFingerprint(two[0].databaseUrl)];
  const same = prints[0].text === prints[1].text;
  if (!same) ctx.failures.push(`year import with 1 and 2 reading threads: different content (${prints[0].text} ≠ ${prints[1].text})`);
  const work = { 1: median(one.map((r) => r.workSeconds)), 2: median(two.map((r) => r.workSeconds)) };
  const stage = { 1: median(one.map((r) => r.split.stageMs)), 2: median(two.map((r) => r.split.stageMs)) };
  const rss = { 1: median(one.map((r) => r.rssKb)), 2: median(two.map((r) => r.rssKb)) };
  const each = (list) => list.map((r) => `${fmtS(r.workSeconds)} (extract + stage ${fmtS(r.split.stageMs / 1000)}, peak RSS ${fmtMb(r.rssKb)})`).join(', ');
  return {
    rows: [
      tableRow({
        figure: `year import on ${dialect}, 2 reading threads vs 1 (IDEM_READ_THREADS; stage + upsert: whole \`idem run\` minus its post stage${pairs > 1 ? `, median of ${pairs}` : ''})`,
        idem: `${fmtS(work[2])} (extract + stage ${fmtS(stage[2] / 1000)}, peak RSS ${fmtMb(rss[2])})`,
        baseline: `${fmtS(work[1])} (extract + stage ${fmtS(stage[1] / 1000)}, peak RSS ${fmtMb(rss[1])}), 1 thread`,
        ratio: `${fmtX(work[2] / work[1])} (extract + stage ${fmtX(stage[2] / stage[1])})`,
        target: '– (reported: decides the default)',
      }),
    ],
    notes: [
      `- Year import on ${dialect} by reading threads: 1 thread ${each(one)}; 2 threads ${each(two)}; in that order per pair, alternating. ` +
        `Reads on a thread of their own per 2-thread run: ${two.map((r) => r.reads).join(', ')} (1-thread runs: ${one.map((r) => r.reads).join(', ')}). ` +
        `Content: ${same ? `identical (${prints[0].text})` : `DIFFERS — 1 thread ${prints[0].text}, 2 threads ${prints[1].text}`}.`,
    ],
  };
}

/** How many reads of a run said they were on a thread of their own (its `readThread` log lines). @param {string} output */
function readsOnThreads(output) {
  return output.split('\n').filter((line) => line.includes('"readThread":')).length;
}
