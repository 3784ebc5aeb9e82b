// Figure: the 305 daily files as a source directory, `idem backfill online-retail-invoices
// --from FIRST --to LAST` (one run, lock and job_runs row per date; dates without a file are
// skipped by the pipeline's `missing: 'skip'`) on PostgreSQL, vs the floor: the same 305 files
// each \copy'd and upserted in its own transaction, in ONE psql session. idem's time is the
// backfill process minus every run's post stage. Target ≤ 3×. The per-run overhead (lock,
// job_runs, run key: a run's duration minus its extract/stage/upsert/post ms) and the process
// start-up are reported on their own rows.
import path from 'node:path';
import { runPostgresFloor } from './floors/postgres-floor.js';
import { contentFingerprint } from './lib/content-fingerprint.js';
import { idemEnv, migrate, mustSucceedIdem, runIdem } from './lib/idem-cli.js';
import { runSummaries, stageSplit } from './lib/run-summaries.js';
import { fmtS, fmtX, tableRow } from './lib/results-table.js';
import { median, sum } from './lib/stats.js';
import { dailyFiles } from './lib/year-files.js';

const TARGET_RATIO = 3;

/** @param {object} ctx the runner's context @returns {Promise<{ rows: object[], notes: string[] }>} */
export async function benchBackfill(ctx) {
  const files = dailyFiles(ctx.dataDir);
  const databaseUrl = ctx.scratch.create('postgres', 'backfill');
  const env = idemEnv({ databaseUrl, sandboxUrl: ctx.sandbox.url, concurrency: ctx.concurrency, sourceDir: ctx.dataDir });
  await migrate(ctx, env);
  await ctx.sandbox.reset();
  ctx.log(`idem backfill ${ctx.year.firstDate} … ${ctx.year.lastDate} (${files.length} files) …`);
  const r = await runIdem(ctx, ['backfill', 'online-retail-invoices', '--from', ctx.year.firstDate, '--to', ctx.year.lastDate], env, { label: 'backfill', measureRss: true, timeoutMs: ctx.backfillTimeoutS * 1000 });
  if (r.timedOut) return unfinished(ctx, r, files.length);
  mustSucceedIdem(r, 'idem backfill');
  const summaries = runSummaries(r.output);
  const completed = summaries.filter((s) => s.outcome === 'completed');
  const skipped = summaries.filter((s) => s.outcome === 'skipped');
  if (completed.length !== files.length) throw new Error(`idem backfill completed ${completed.length} runs; there are ${files.length} files`);
  const splits = completed.map(stageSplit);
  const postS = sum(splits.map((s) => s.postMs)) / 1000;
  const workS = r.seconds - postS;
  const runOverheadMs = splits.map((s) => s.durationMs - s.stageMs - s.upsertMs - s.postMs);
  const outsideRunsS = r.seconds - sum(summaries.map((s) => s.durationMs ?? 0)) / 1000;
  ctx.log(`idem backfill: ${fmtS(r.seconds)} wall, post ${fmtS(postS)}, without post ${fmtS(workS)}`);

  const floorUrl = ctx.scratch.create('postgres', 'backfill_floor');
  await migrate(ctx, idemEnv({ databaseUrl: floorUrl, sandboxUrl: ctx.sandbox.url, concurrency: ctx.concurrency }));
  ctx.log(`backfill floor (one psql session, ${files.length} × (\\copy + upsert)) …`);
  const floor = await runPostgresFloor(ctx, floorUrl, files.map((f) => path.join(ctx.dataDir, f)), 'floor-backfill-postgres');
  ctx.log(`backfill floor: ${fmtS(floor.seconds)}`);
  const [fpIdem, fpFloor] = [await contentFingerprint(databaseUrl), await contentFingerprint(floorUrl)];
  const same = fpIdem.text === fpFloor.text;
  if (!same) ctx.failures.push('backfill: idem and the floor wrote different content');
  const ratio = workS / floor.seconds;
  const perRunFloorMs = (floor.seconds * 1000) / files.length;
  return {
    rows: [
      tableRow({
        figure: `backfill: ${files.length} daily runs (\`idem backfill\`, one process), PostgreSQL, without the post stage`,
        idem: fmtS(workS),
        baseline: `${fmtS(floor.seconds)} (one psql session: ${files.length} × (\\copy + INSERT … ON CONFLICT), each in its own transaction)`,
        ratio: fmtX(ratio),
        target: `≤ ${TARGET_RATIO}×`,
        ok: ratio <= TARGET_RATIO,
      }),
      tableRow({
        figure: 'backfill per-run overhead: a run\'s duration minus its extract/stage/upsert/post ms (lock, job_runs, run key), median',
        idem: `${median(runOverheadMs).toFixed(0)} ms`,
        baseline: `${perRunFloorMs.toFixed(0)} ms (the floor's whole time per file)`,
        ratio: '–', target: '– (reported)', ok: undefined,
      }),
    ],
    notes: [
      `- Backfill: idem wall ${fmtS(r.seconds)}, ${completed.length} completed runs and ${skipped.length} skipped dates (no file; median ${skipped.length ? median(skipped.map((s) => s.durationMs)).toFixed(0) : '–'} ms each); summed over runs: extract + stage ${sum(splits.map((s) => s.stageMs))} ms, upsert ${sum(splits.map((s) => s.upsertMs))} ms, post ${Math.round(postS * 1000)} ms (left out), per-run overhead ${sum(runOverheadMs)} ms (median ${median(runOverheadMs).toFixed(0)} ms, max ${Math.max(...runOverheadMs)} ms); outside any run (process start-up, migration check, between dates) ${fmtS(outsideRunsS)}; peak RSS ${(r.rssKb / 1024).toFixed(0)} MB.`,
      `- Backfill floor (psql \\timing, summed): \\copy ${floor.copyMs} ms, INSERT … ON CONFLICT ${floor.insertMs} ms, begin/truncate/commit ${Math.round(sum(floor.statementMs) - floor.copyMs - floor.insertMs)} ms. Content check: ${same ? `identical (${fpIdem.text})` : `DIFFERS — idem ${fpIdem.text}, floor ${fpFloor.text}`}.`,
    ],
  };
}

/**
 * The row of a backfill stopped at BENCH_BACKFILL_TIMEOUT_S: how many runs completed, and how the
 * upsert time of a run moved from the first runs to the last ones (a growing upsert is what
 * makes a backfill slow down).
 */
function unfinished(ctx, r, fileCount) {
  const completed = runSummaries(r.output).filter((s) => s.outcome === 'completed');
  const splits = completed.map(stageSplit);
  const upserts = (list) => list.map((s) => s.upsertMs).join(', ');
  ctx.failures.push(`backfill: stopped after ${ctx.backfillTimeoutS} s with ${completed.length} of ${fileCount} runs completed`);
  return {
    rows: [tableRow({
      figure: `backfill: ${fileCount} daily runs (\`idem backfill\`, one process), PostgreSQL`,
      idem: `did not finish in ${ctx.backfillTimeoutS} s: ${completed.length} of ${fileCount} runs completed (stopped)`,
      baseline: '–', ratio: '–', target: `≤ ${TARGET_RATIO}×`, ok: false,
    })],
    notes: [`- Backfill stopped at BENCH_BACKFILL_TIMEOUT_S=${ctx.backfillTimeoutS}: ${completed.length} runs completed (${completed.at(-1)?.runKey ?? 'none'} the last). Upsert ms of the first runs: ${upserts(splits.slice(0, 5))}; of the last: ${upserts(splits.slice(-5))}; extract + stage ms of the last: ${splits.slice(-5).map((s) => s.stageMs).join(', ')}.`],
  };
}
