import { countLedgerItems, selectUnpostedItems } from '../ledger/ledger-reports.ts';
import { countQuarantine, listQuarantine } from '../quarantine/quarantine-queries.ts';
import { findJobRun } from '../runs/job-runs-queries.ts';
import { badge, runState } from './run-state.ts';
import { stageCounts, stageDurations, summaryLine } from './run-summary.ts';
import { stageChart } from './stage-chart.ts';
import { PAGE_SIZE, type UiContext } from './ui-context.ts';
import { html, type Html } from './ui-html.ts';
import { duration, href, instant, pager, runHref } from './ui-layout.ts';

/**
 * One run key of a pipeline: its attempts (job_runs keeps the latest attempt's details and counts
 * the others, those that died among them), its stages' counts and durations, its summary line,
 * its quarantined rows and its ledger items not posted, each list {@link PAGE_SIZE} a page.
 * @returns undefined when the run key has no run.
 */
export async function runView(ctx: UiContext, args: { jobName: string; runKey: string; quarantinePage: number; ledgerPage: number }): Promise<Html | undefined> {
  const { jobName, runKey } = args;
  const run = await findJobRun(ctx.db, jobName, runKey);
  if (run === undefined) return undefined;
  const state = await runState(ctx, run);
  const ended =
    run.status === 'started'
      ? state.state === 'dead' ? `not recorded: it died (${state.why})` : 'still running'
      : run.status === 'failed' ? 'failed' : run.status === 'needs_review' ? 'done; ledger items need an operator'
      : run.status === 'unavailable' ? 'not finished: items failed transiently (the destination stayed unavailable); a rerun later retries them' : 'completed';
  const earlier = run.attempts - 1;
  const quarantined = await countQuarantine(ctx.db, { jobName, runKey });
  const quarantine = await listQuarantine(ctx.db, { jobName, runKey, limit: PAGE_SIZE + 1, offset: (args.quarantinePage - 1) * PAGE_SIZE });
  const ledger = await countLedgerItems(ctx.db, { jobName, runKey });
  const unposted = await selectUnpostedItems(ctx.db, { jobName, runKey, limit: PAGE_SIZE + 1, offset: (args.ledgerPage - 1) * PAGE_SIZE });
  const unpostedTotal = Object.entries(ledger).filter(([status]) => status !== 'posted' && status !== 'superseded').reduce((sum, [, n]) => sum + (n ?? 0), 0);
  const link = (params: { q?: number; l?: number }) => `${runHref(jobName, runKey)}&${new URLSearchParams({ q: String(params.q ?? args.quarantinePage), l: String(params.l ?? args.ledgerPage) })}`;
  return html`<p><a href="${href(`/pipelines/${encodeURIComponent(jobName)}`, {})}">${jobName}</a> · run key <b>${runKey}</b> ${badge(state.state, state.why)}</p>
<section class="card">
<h2>Attempts</h2>
<table class="attempts"><thead><tr><th>attempt</th><th>triggered by</th><th>started</th><th>finished</th><th>duration</th><th>how it ended</th></tr></thead><tbody>
<tr><td>${run.attempts} (latest)</td><td>${run.triggeredBy}</td><td>${instant(run.startedAt)}</td><td>${instant(run.finishedAt)}</td><td>${run.finishedAt ? duration(Date.parse(run.finishedAt) - Date.parse(run.startedAt)) : '-'}</td><td>${ended}</td></tr>
${earlier > 0 ? html`<tr><td>1–${earlier}</td><td colspan="5" class="meta">${earlier} earlier attempt(s)${run.diedAttempts > 0 ? `, ${run.diedAttempts} of them died without recording their end (killed, host lost, or lock lost)` : ', each recorded its end'}; job_runs keeps the latest attempt's details</td></tr>` : ''}
</tbody></table>
${run.error ? html`<h3>Error</h3><pre class="error">${run.error}</pre>` : ''}
</section>
<section class="card">
<h2>Stages</h2>
<p class="summary"><code>${summaryLine(run)}</code></p>
${stageChart(stageDurations(run))}
<table class="stages"><thead><tr><th>stage</th><th>counts</th></tr></thead><tbody>${stageCounts(run).map(([stage, counts]) => html`<tr><td>${stage}</td><td>${counts}</td></tr>`)}</tbody></table>
</section>
<section class="card" id="quarantine">
<h2>Quarantined rows (${quarantined})</h2>
${quarantine.length === 0 ? html`<p class="empty">none</p>` : html`<table class="quarantine"><thead><tr><th>file</th><th>line</th><th>reason</th><th>raw text</th></tr></thead><tbody>${quarantine.slice(0, PAGE_SIZE).map(
    (q) => html`<tr><td><code>${q.source}</code></td><td>${q.line ?? '-'}</td><td>${q.reason}</td><td><pre>${q.raw ?? ''}</pre></td></tr>`,
  )}</tbody></table>`}
${pager({ page: args.quarantinePage, hasMore: quarantine.length > PAGE_SIZE, link: (q) => `${link({ q })}#quarantine`, what: 'rows' })}
</section>
<section class="card" id="ledger">
<h2>Ledger items not posted (${unpostedTotal})</h2>
<p class="meta">${Object.entries(ledger).map(([status, n]) => `${status} ${n}`).join(' · ') || 'no ledger items'}</p>
${unposted.length === 0 ? html`<p class="empty">every item is posted</p>` : html`<table class="ledger"><thead><tr><th>destination</th><th>reference</th><th>status</th><th>attempts</th><th>HTTP</th><th>last error</th></tr></thead><tbody>${unposted.slice(0, PAGE_SIZE).map(
    (i) => html`<tr><td>${i.destination}</td><td>${i.sourceReference}</td><td>${i.status}${i.failureKind ? ` (${i.failureKind})` : ''}</td><td>${i.attempts}</td><td>${i.lastHttpStatus ?? '-'}</td><td><pre>${i.lastError ?? ''}</pre></td></tr>`,
  )}</tbody></table>`}
${pager({ page: args.ledgerPage, hasMore: unposted.length > PAGE_SIZE, link: (l) => `${link({ l })}#ledger`, what: 'items' })}
</section>`;
}
