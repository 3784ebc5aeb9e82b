import { countLedgerItems } from '../ledger/ledger-reports.ts';
import { listStartedJobRuns } from '../runs/job-runs-queries.ts';
import { runLiveness } from '../runs/run-liveness.ts';
import { badge } from './run-state.ts';
import type { UiContext } from './ui-context.ts';
import { html, type Html } from './ui-html.ts';
import { duration, instant, runHref } from './ui-layout.ts';

/** How far a started run is: before its post stage (extract, stage, upsert), or posting with its items posted so far. */
async function progress(ctx: UiContext, jobName: string, runKey: string, stage: string | null): Promise<string> {
  if (stage !== 'post') return 'extract, stage and upsert';
  const items = await countLedgerItems(ctx.db, { jobName, runKey });
  const total = Object.entries(items).filter(([status]) => status !== 'superseded').reduce((sum, [, n]) => sum + (n ?? 0), 0);
  return `posting: ${items.posted ?? 0} of ${total} items posted${items.failed ? `, ${items.failed} failed` : ''}${items.review ? `, ${items.review} in review` : ''}`;
}

/**
 * The live runs: every run whose latest attempt is `started`, with who holds its app lock, its
 * heartbeat's age and its progress. Dead runs are flagged as `idem status` flags them (see `runLiveness`).
 */
export async function nowView(ctx: UiContext): Promise<Html> {
  const nowMs = ctx.now();
  const rows: Html[] = [];
  for (const run of await listStartedJobRuns(ctx.db)) {
    const liveness = await runLiveness(ctx.db, run, nowMs, ctx.staleMs);
    if (liveness.state === 'finished') continue;
    const heartbeatMs = nowMs - Date.parse(run.heartbeatAt ?? run.startedAt);
    // SQLite's lock is a lease row whose holder renews it: the fresh heartbeat is the run's own.
    const holder = liveness.state === 'running' ? (liveness.holder ?? `the run's own process (lease renewed with its heartbeat)`) : 'nobody';
    rows.push(html`<tr class="live-run" data-pipeline="${run.jobName}" data-run-key="${run.runKey}" data-state="${liveness.state}">
<td>${run.jobName}</td><td><a href="${runHref(run.jobName, run.runKey)}">${run.runKey}</a></td>
<td>${liveness.state === 'dead' ? html`${badge('dead')} <span class="flag">DEAD (started, ${liveness.why})</span>` : badge('running')}</td>
<td>${holder}</td><td>${run.triggeredBy}</td><td>${instant(run.startedAt)}</td><td>${duration(Math.max(0, heartbeatMs))} ago</td>
<td>${await progress(ctx, run.jobName, run.runKey, run.stage)}</td></tr>`);
  }
  return html`<p class="meta">Reloads every 5 s. A run is dead when its heartbeat has been silent longer than ${duration(ctx.staleMs)}, or, on a server database, when no process holds its pipeline's app lock; rerun its run key to finish it.</p>
${rows.length === 0 ? html`<p class="empty">no runs in progress</p>` : html`<table class="now"><thead><tr><th>pipeline</th><th>run key</th><th>state</th><th>lock holder</th><th>triggered by</th><th>started</th><th>heartbeat</th><th>progress</th></tr></thead><tbody>${rows}</tbody></table>`}`;
}
