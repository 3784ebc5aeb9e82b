// Figure: the year file with its lines in random order (an export sorted by some other column, so
// one invoice's lines are anywhere in the file). The example pipeline groups each invoice over the
// whole file (`groupRows`, an external merge sort on disk), so the shuffled year loads with the
// same invoices as the shop's own order, each invoice's lines aside. Measured on PostgreSQL beside
// the sorted year import: the import time, peak RSS of the shuffled year and of the shuffled year
// twice (target: within ±10% of each other, memory flat in the file's size), and the grouping
// alone (as idem groups a file, always through the sort, and within a window), without a database.
import path from 'node:path';
import { runBenchScript } from './lib/child-process.js';
import { contentFingerprint } from './lib/content-fingerprint.js';
import { fmtMb, fmtS, fmtX, tableRow } from './lib/results-table.js';
import { writeDoubledYearFile, writeShuffledFile } from './lib/year-files.js';

const TARGET_SPREAD = 0.1;
/** Issue 29: the random-order import against the ordered one, and its peak RSS. */
const TARGET_TIME = 1.25;
const TARGET_MB = 200;

/** @param {object} ctx the runner's context @returns {Promise<{ rows: object[], notes: string[] }>} */
export async function benchUnsortedImport(ctx) {
  const sorted = await ctx.postgresYearImport();
  const shuffled = writeShuffledFile(ctx.year.file, path.join(ctx.tmp, 'year-shuffled.csv'));
  const doubled = writeShuffledFile(writeDoubledYearFile(ctx.year.file, path.join(ctx.tmp, 'year-twice-sorted.csv')).file, path.join(ctx.tmp, 'year-twice-shuffled.csv'));
  ctx.log(`${shuffled.file}: ${shuffled.lines} lines in random order; ${doubled.file}: ${doubled.lines} lines, ${doubled.invoices} invoices`);
  const one = await ctx.importWithIdem('postgres', shuffled, 'unsorted_1x');
  const two = await ctx.importWithIdem('postgres', doubled, 'unsorted_2x');

  const [fpSorted, fpShuffled] = [await contentFingerprint(sorted.databaseUrl, { linesInAnyOrder: true }), await contentFingerprint(one.databaseUrl, { linesInAnyOrder: true })];
  const same = fpSorted.text === fpShuffled.text;
  if (!same) ctx.failures.push(`unsorted import: the shuffled year wrote other invoices than the sorted one (${fpShuffled.text} ≠ ${fpSorted.text})`);

  const group = {};
  for (const [name, file, over] of [['window, sorted', ctx.year.file, 'window'], ['source, sorted', ctx.year.file, 'source'], ['file, sorted', ctx.year.file, 'file'], ['file, shuffled', shuffled.file, 'file']]) {
    const { result } = await runBenchScript(ctx, 'floors/group-rows-only.js', [file, over], `groupRows (${over})`);
    if (result.groups !== ctx.year.invoices && over !== 'window') ctx.failures.push(`groupRows (${name}): ${result.groups} groups, expected ${ctx.year.invoices}`);
    group[name] = result;
  }
  const spread = two.rssKb / one.rssKb - 1;
  const cpu = (name) => fmtS(group[name].cpuMs / 1000);
  return {
    rows: [
      tableRow({
        figure: 'year file in random line order, PostgreSQL (stage + upsert: whole `idem run` minus its post stage)',
        idem: fmtS(one.workSeconds), baseline: `${fmtS(sorted.workSeconds)} (the year in the shop's order)`, ratio: fmtX(one.workSeconds / sorted.workSeconds), target: `≤ ${TARGET_TIME}×`, ok: one.workSeconds / sorted.workSeconds <= TARGET_TIME,
      }),
      tableRow({
        figure: 'peak RSS, year file in random line order (PostgreSQL import incl. post)',
        idem: fmtMb(one.rssKb), baseline: `${fmtMb(sorted.rssKb)} (the year in the shop's order)`, ratio: fmtX(one.rssKb / sorted.rssKb), target: `≤ ${TARGET_MB} MB`, ok: one.rssKb / 1024 <= TARGET_MB,
      }),
      tableRow({
        figure: `peak RSS, twice the year in random line order (${(doubled.bytes / 1e6).toFixed(1)} MB, ${doubled.invoices.toLocaleString('en')} invoices)`,
        idem: fmtMb(two.rssKb), baseline: `${fmtMb(one.rssKb)} (the 1× file in random order)`, ratio: fmtX(two.rssKb / one.rssKb),
        target: `within ±${TARGET_SPREAD * 100}% of 1×`, ok: Math.abs(spread) <= TARGET_SPREAD,
      }),
      tableRow({
        figure: 'groupRows alone over the year file as `idem run` groups a file (a first pass without the sort; the file read again through the sort if a key comes back), with idem\'s CSV reader and row schema, no database (bench/floors/group-rows-only.js), CPU',
        idem: `${cpu('file, sorted')} (${group['file, sorted'].passes} pass; in random order ${cpu('file, shuffled')}, ${group['file, shuffled'].passes} passes)`,
        baseline: `${cpu('source, sorted')} always through the sort (${cpu('window, sorted')} within a window)`,
        ratio: fmtX(group['file, sorted'].cpuMs / group['source, sorted'].cpuMs), target: '– (reported)',
      }),
    ],
    notes: [
      `- Random line order: the year's ${shuffled.lines.toLocaleString('en')} lines shuffled (seeded), header first. Content check against the year in the shop's order (business columns normalised, each invoice's lines in any order): ${same ? `identical (${fpShuffled.text})` : `DIFFERS — shuffled ${fpShuffled.text}, sorted ${fpSorted.text}`}. The 2× file in random order took ${two.seconds.toFixed(1)} s wall (${two.workSeconds.toFixed(1)} s without its post stage).`,
    ],
  };
}
