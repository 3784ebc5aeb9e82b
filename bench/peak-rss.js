// Figure: peak RSS of idem importing the year file, and a file twice its size (the year twice, the
// second copy's invoice numbers made distinct). Targets: ≤ 150 MB, and the 2× within ±10% of the
// 1× (memory flat in input size). Both on PostgreSQL, both posting to the same sandbox.
import path from 'node:path';
import { peakRssMethod } from './lib/child-process.js';
import { fmtMb, tableRow } from './lib/results-table.js';
import { writeDoubledYearFile } from './lib/year-files.js';

const TARGET_MB = 150;
const TARGET_SPREAD = 0.1;

/** @param {object} ctx the runner's context @returns {Promise<{ rows: object[], notes: string[] }>} */
export async function benchPeakRss(ctx) {
  const one = await ctx.postgresYearImport();
  const doubled = writeDoubledYearFile(ctx.year.file, path.join(ctx.tmp, 'year-twice.csv'));
  ctx.log(`${doubled.file}: ${doubled.lines} lines, ${doubled.invoices} invoices, ${(doubled.bytes / 1e6).toFixed(1)} MB`);
  const two = await ctx.importWithIdem('postgres', doubled, 'rss_2x');
  // bin/idem.js caps V8's young generation at 16 MB (IDEM_YOUNG_GENERATION_MB); the same year file
  // without the cap (V8's own sizing): peak RSS and stage + upsert time beside the default's.
  const uncapped = await ctx.importWithIdem('postgres', ctx.year, 'rss_v8_sizing', { IDEM_YOUNG_GENERATION_MB: '0' });
  // Most of the peak outside V8's heap is glibc malloc's per-thread arenas (V8's GC and compiler
  // threads): the same import with one arena, which only the environment can set (docs/operating.md).
  const oneArena = await ctx.importWithIdem('postgres', ctx.year, 'rss_one_arena', { MALLOC_ARENA_MAX: '1' });
  const oneMb = one.rssKb / 1024;
  const spread = two.rssKb / one.rssKb - 1;
  return {
    rows: [
      tableRow({
        figure: `peak RSS, year file (${(ctx.year.bytes / 1e6).toFixed(1)} MB, PostgreSQL import incl. post)`,
        idem: fmtMb(one.rssKb), baseline: '–', ratio: '–', target: `≤ ${TARGET_MB} MB`, ok: oneMb <= TARGET_MB,
      }),
      tableRow({
        figure: `peak RSS, twice the year (${(doubled.bytes / 1e6).toFixed(1)} MB, ${doubled.invoices.toLocaleString('en')} invoices)`,
        idem: fmtMb(two.rssKb), baseline: `${fmtMb(one.rssKb)} (the 1× file)`, ratio: `${(two.rssKb / one.rssKb).toFixed(2)}×`,
        target: `≤ ${TARGET_MB} MB and within ±${TARGET_SPREAD * 100}% of 1×`, ok: two.rssKb / 1024 <= TARGET_MB && Math.abs(spread) <= TARGET_SPREAD,
      }),
      tableRow({
        figure: 'peak RSS and stage + upsert time, year file: idem (bin/idem.js stops V8\'s new space growing at 16 MB) vs IDEM_YOUNG_GENERATION_MB=0 (V8\'s own sizing: 64 MB on Node 24)',
        idem: `${fmtMb(one.rssKb)}; ${one.workSeconds.toFixed(2)} s`,
        baseline: `${fmtMb(uncapped.rssKb)}; ${uncapped.workSeconds.toFixed(2)} s`,
        ratio: `${(one.rssKb / uncapped.rssKb).toFixed(2)}× RSS, ${(one.workSeconds / uncapped.workSeconds).toFixed(2)}× time`,
        target: '– (reported)',
      }),
      tableRow({
        figure: 'peak RSS and stage + upsert time, year file: with MALLOC_ARENA_MAX=1 in the environment (glibc malloc: one arena, not one per thread) vs the default',
        idem: `${fmtMb(oneArena.rssKb)}; ${oneArena.workSeconds.toFixed(2)} s`,
        baseline: `${fmtMb(one.rssKb)}; ${one.workSeconds.toFixed(2)} s`,
        ratio: `${(oneArena.rssKb / one.rssKb).toFixed(2)}× RSS, ${(oneArena.workSeconds / one.workSeconds).toFixed(2)}× time`,
        target: '– (reported)',
      }),
    ],
    notes: [`- Peak RSS by ${peakRssMethod}, of the whole \`idem run\` process (extract, stage, upsert and post). The 2× run took ${two.seconds.toFixed(1)} s wall (${(two.workSeconds).toFixed(1)} s without its post stage).`],
  };
}
