// Figure: after the PostgreSQL year import, the year file again with 1% of its invoices changed
// (259 invoices: one line's quantity each) — new content, so a new run key — vs the first run.
// Two rows: the whole `idem run` of each (the first posts 25,900 invoices, the rerun 259), which
// the ≤ 0.5× target is for; and the same without their post stages (reported), which shows that
// the rerun still reads, validates and stages the whole file.
import path from 'node:path';
import { importWithIdem } from './lib/import-with-idem.js';
import { mustSucceedIdem, runIdem } from './lib/idem-cli.js';
import { singleSummary, stageSplit } from './lib/run-summaries.js';
import { fmtS, fmtX, tableRow } from './lib/results-table.js';
import { writeChangedYearFile } from './lib/year-files.js';

const TARGET_RATIO = 0.5;

/**
 * The 1% changed rerun on the PostgreSQL year import, done once per bench run and shared with the
 * knex baseline (bench/knex-baseline.js).
 * @param {object} ctx the runner's context
 * @returns {Promise<{ first: object, changed: object, r: object, summary: object, split: object, workSeconds: number }>}
 *   `r`: runTimed's result of the whole `idem run`; `workSeconds`: its wall time minus its post stage.
 * @throws Error when idem fails or does not complete.
 */
export function rerunChangedOnce(ctx) {
  ctx.pgRerun ??= (async () => {
    // A changed invoice updates the record the first import created (PUT /invoices/{id}), so the
    // rerun follows its own first import at once, on the sandbox that holds those records (every
    // import resets the sandbox).
    const first = await importWithIdem(ctx, 'postgres', ctx.year, 'rerun_postgres');
    const changed = writeChangedYearFile(ctx.year.file, path.join(ctx.tmp, 'year-1pct-changed.csv'), 100);
    const before = await ctx.sandbox.stats();
    ctx.log(`rerun with ${changed.changedInvoices} invoices changed …`);
    const r = mustSucceedIdem(await runIdem(ctx, ['run', 'online-retail-invoices', '--file', changed.file], first.env, { label: 'rerun-changed', measureRss: true }), 'idem run (1% changed)');
    const after = await ctx.sandbox.stats();
    const summary = singleSummary(r.output, 'completed', 'idem run (1% changed)');
    const split = stageSplit(summary);
    const requests = { creates: after.postRequests - before.postRequests, updates: after.updateRequests - before.updateRequests };
    return { first, changed, r, summary, split, requests, workSeconds: r.seconds - split.postMs / 1000 };
  })();
  return ctx.pgRerun;
}

/** @param {object} ctx the runner's context @returns {Promise<{ rows: object[], notes: string[] }>} */
export async function benchRerunChanged(ctx) {
  const { first, changed, r, summary, split, requests, workSeconds } = await rerunChangedOnce(ctx);
  const up = summary.counts.upsert;
  const expectedUnchanged = ctx.year.invoices - changed.changedInvoices;
  const countsOk =
    up.inserted === 0 && up.updated === changed.changedInvoices && up.unchanged === expectedUnchanged && split.posted === changed.changedInvoices &&
    requests.updates === changed.changedInvoices && requests.creates === 0;
  if (!countsOk) ctx.failures.push(`1% rerun: counts inserted ${up.inserted}, updated ${up.updated}, unchanged ${up.unchanged}, posted ${split.posted}, sandbox updates ${requests.updates}, creates ${requests.creates}; expected 0, ${changed.changedInvoices}, ${expectedUnchanged}, ${changed.changedInvoices}, ${changed.changedInvoices}, 0`);
  const ratio = r.seconds / first.seconds;
  const figure = `rerun with 1% of invoices changed (${changed.changedInvoices} of ${ctx.year.invoices.toLocaleString('en')}), PostgreSQL`;
  return {
    rows: [
      tableRow({
        figure: `${figure}: the whole \`idem run\`, posting the ${changed.changedInvoices} changed`,
        idem: fmtS(r.seconds),
        baseline: `${fmtS(first.seconds)} (the first import, posting all ${ctx.year.invoices.toLocaleString('en')})`,
        ratio: fmtX(ratio),
        target: `≤ ${TARGET_RATIO}×`,
        ok: ratio <= TARGET_RATIO,
      }),
      tableRow({
        figure: `${figure}, without the post stage`,
        idem: fmtS(workSeconds),
        baseline: `${fmtS(first.workSeconds)} (the first import, without its post stage)`,
        ratio: fmtX(workSeconds / first.workSeconds),
        target: '– (reported)',
      }),
    ],
    notes: [`- 1% rerun: wall ${fmtS(r.seconds)} (first import ${fmtS(first.seconds)}); summary: extract + stage ${split.stageMs} ms, upsert ${split.upsertMs} ms, post ${split.postMs} ms; counts: ${up.inserted} inserted, ${up.updated} updated, ${up.unchanged} unchanged, ${split.posted} posted (the sandbox saw ${requests.updates} updates, PUT /invoices/{id}, and ${requests.creates} creates) — ${countsOk ? 'as expected' : 'NOT as expected'}; peak RSS ${(r.rssKb / 1024).toFixed(0)} MB.`],
  };
}
