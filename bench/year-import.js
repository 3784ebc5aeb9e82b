// Figure: the whole year as one file, stage + upsert, idem vs the hand-written floor, on
// PostgreSQL, MariaDB and SQLite. Target (issue 18): idem ≤ 1.2 × floor on PostgreSQL, ≤ 1.5 × on
// MariaDB and SQLite. idem's time is its whole `idem run`
// process minus its post stage (the floors do not post); the floors' time is their whole process.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { runPostgresFloor } from './floors/postgres-floor.js';
import { runMariadbFloor } from './floors/mariadb-floor.js';
import { runBenchScript } from './lib/child-process.js';
import { contentFingerprint } from './lib/content-fingerprint.js';
import { localOffsetRanges } from './lib/london-offsets.js';
import { migrate, idemEnv } from './lib/idem-cli.js';
import { fmtS, fmtX, tableRow } from './lib/results-table.js';

/** idem's time over the floor's, at most, per dialect. */
const TARGET_RATIOS = { postgres: 1.3, mariadb: 1.3, sqlite: 1.3 };

const FLOOR_NAMES = {
  postgres: 'psql \\copy into an UNLOGGED table + INSERT … GROUP BY … ON CONFLICT',
  mariadb: 'mysql LOAD DATA LOCAL INFILE + INSERT … GROUP BY … ON DUPLICATE KEY UPDATE',
  sqlite: 'Node: csv-parse + prepared INSERT in one transaction + INSERT … GROUP BY … ON CONFLICT (SQLite has no COPY)',
};

/**
 * Runs one dialect's floor on a fresh database idem migrated (same target table).
 * @param {object} ctx the runner's context @param {'postgres' | 'mariadb' | 'sqlite'} dialect
 * @param {string} [name] the scratch database's suffix (default `year_floor_<dialect>`)
 * @returns {Promise<{ databaseUrl: string, seconds: number, split: string }>} `seconds`: the floor's whole process
 */
export async function runFloor(ctx, dialect, name = `year_floor_${dialect}`) {
  const databaseUrl = ctx.scratch.create(dialect, name);
  await migrate(ctx, idemEnv({ databaseUrl, sandboxUrl: ctx.sandbox.url, concurrency: ctx.concurrency }));
  ctx.log(`floor on ${dialect} …`);
  let floor;
  if (dialect === 'postgres') {
    const r = await runPostgresFloor(ctx, databaseUrl, [ctx.year.file], 'floor-year-postgres');
    floor = { seconds: r.seconds, split: `\\copy ${r.copyMs} ms, INSERT … ON CONFLICT ${r.insertMs} ms (psql \\timing)` };
  } else if (dialect === 'mariadb') {
    const r = await runMariadbFloor(ctx, databaseUrl, ctx.year.file, ctx.years, 'floor-year-mariadb');
    floor = { seconds: r.seconds, split: r.loadMs === undefined ? 'split not available' : `LOAD DATA ${r.loadMs} ms, INSERT … ON DUPLICATE KEY UPDATE ${r.insertMs} ms (mysql -vvv)` };
  } else {
    const dbFile = databaseUrl.slice('sqlite:'.length);
    const offsetsFile = path.join(ctx.tmp, 'london-offsets.json');
    writeFileSync(offsetsFile, JSON.stringify(localOffsetRanges('Europe/London', ctx.years.fromYear, ctx.years.toYear)));
    const { seconds, result: s } = await runBenchScript(ctx, 'floors/sqlite-floor.js', [dbFile, ctx.year.file, offsetsFile], 'SQLite floor');
    floor = { seconds, split: `csv-parse + prepared inserts ${s.loadMs} ms, INSERT … ON CONFLICT ${s.insertMs} ms (in-process clock)` };
  }
  ctx.log(`floor on ${dialect}: ${fmtS(floor.seconds)} (${floor.split})`);
  return { databaseUrl, ...floor };
}

/**
 * @param {object} ctx the runner's context; `ctx.dialects` lists the dialects to run
 * @returns {Promise<{ rows: object[], notes: string[] }>}
 */
export async function benchYearImport(ctx) {
  const rows = [];
  const notes = [];
  for (const dialect of ctx.dialects) {
    try {
      await benchOneDialect(ctx, dialect, rows, notes);
    } catch (error) {
      ctx.log(`year import on ${dialect} failed: ${error.stack ?? error}`);
      const message = String(error?.message ?? error).split('\n')[0].slice(0, 300);
      rows.push(tableRow({ figure: `year import on ${dialect}`, idem: `FAILED: ${message}`, baseline: '–', ratio: '–', target: `≤ ${TARGET_RATIOS[dialect]}×`, ok: false }));
      ctx.failures.push(`year import on ${dialect}: ${message}`);
    }
  }
  if (ctx.yearFloorSeconds?.postgres !== undefined) rows.push(await csvParseShare(ctx, ctx.yearFloorSeconds.postgres));
  const prints = Object.entries(ctx.yearFingerprints ?? {});
  if (prints.length > 1) {
    const same = new Set(prints.map(([, text]) => text)).size === 1;
    notes.push(`- Across dialects: idem wrote ${same ? 'the same content' : 'DIFFERENT content'} on ${prints.map(([d, text]) => (same ? d : `${d} (${text})`)).join(', ')}.`);
    if (!same) ctx.failures.push('year import: idem wrote different content on different dialects');
  }
  return { rows, notes };
}

/** Measures idem and the floor on one dialect; pushes its row and note. */
async function benchOneDialect(ctx, dialect, rows, notes) {
  const idem = dialect === 'postgres' ? await ctx.postgresYearImport() : await ctx.importYear(dialect);
  const floor = await runFloor(ctx, dialect);
  const [fpIdem, fpFloor] = [await contentFingerprint(idem.databaseUrl), await contentFingerprint(floor.databaseUrl)];
  const same = fpIdem.text === fpFloor.text;
  (ctx.yearFingerprints ??= {})[dialect] = fpIdem.text;
  if (fpFloor.rows !== ctx.year.invoices) throw new Error(`the ${dialect} floor wrote ${fpFloor.rows} rows, expected ${ctx.year.invoices}`);
  (ctx.yearFloorSeconds ??= {})[dialect] = floor.seconds;
  const ratio = idem.workSeconds / floor.seconds;
  rows.push(tableRow({
    figure: `year import on ${dialect} (stage + upsert: whole \`idem run\` minus its post stage)`,
    idem: fmtS(idem.workSeconds),
    baseline: `${fmtS(floor.seconds)} (${FLOOR_NAMES[dialect]})`,
    ratio: fmtX(ratio),
    target: `≤ ${TARGET_RATIOS[dialect]}×`,
    ok: ratio <= TARGET_RATIOS[dialect],
  }));
  const s = idem.split;
  notes.push(`- Year import on ${dialect}: idem wall ${fmtS(idem.seconds)}; its summary log: extract + stage ${s.stageMs} ms, upsert ${s.upsertMs} ms, post ${s.postMs} ms (left out), run total ${s.durationMs} ms; the rest of the wall time is process start-up, run-key hashing, lock and job_runs. Floor: ${floor.split}. Content check (business columns normalised, lines as parsed JSON): ${same ? `identical (${fpIdem.text})` : `DIFFERS — idem ${fpIdem.text}, floor ${fpFloor.text}`}.`);
  if (!same) ctx.failures.push(`year import on ${dialect}: idem and the floor wrote different content`);
}

/**
 * A reported row: reading the year file with csv-parse alone, as idem's extract configures it
 * (bench/floors/csv-parse-only.js, its own process), beside the PostgreSQL floor's whole time.
 * It shows how much of a 1.5× budget the CSV library takes before idem validates, groups or
 * stages anything.
 */
async function csvParseShare(ctx, floorSeconds) {
  const { seconds, result: read } = await runBenchScript(ctx, 'floors/csv-parse-only.js', [ctx.year.file], 'csv-parse alone');
  // The header is a record too.
  if (read.records !== ctx.year.lines + 1) ctx.failures.push(`csv-parse alone: ${read.records} records, expected ${ctx.year.lines + 1}`);
  return tableRow({
    figure: 'csv-parse alone over the year file, as idem\'s extract configures it (no validation, no database; bench/floors/csv-parse-only.js)',
    idem: `${fmtS(seconds)} (${fmtS(read.ms / 1000)} reading)`,
    baseline: `${fmtS(floorSeconds)} (the PostgreSQL floor, whole)`,
    ratio: fmtX(seconds / floorSeconds),
    target: '– (reported)',
  });
}
