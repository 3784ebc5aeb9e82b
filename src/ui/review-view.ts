import type { LedgerItem } from '../ledger/ledger-item.ts';
import { countItemsNeedingOperator, selectItemsNeedingOperator } from '../ledger/ledger-reports.ts';
import { findJobRun } from '../runs/job-runs-queries.ts';
import { reviewCommands, shellWord } from './review-commands.ts';
import { PAGE_SIZE, type UiContext } from './ui-context.ts';
import { html, type Html } from './ui-html.ts';
import { href, pager, runHref } from './ui-layout.ts';

/**
 * The `idem run` flag that names a run key again, as `idem review` prints it: `--date D`, or for
 * a file run key `--file` with the path its last attempt read, else the file's name.
 */
async function runKeyFlag(ctx: UiContext, jobName: string, runKey: string): Promise<string> {
  if (!runKey.startsWith('file:')) return `--date ${shellWord(runKey)}`;
  const source = ((await findJobRun(ctx.db, jobName, runKey))?.counts as { extract?: { source?: unknown } } | null)?.extract?.source;
  return `--file ${shellWord(typeof source === 'string' ? source : runKey.slice('file:'.length, runKey.lastIndexOf('@sha256:')))}`;
}

async function itemRow(ctx: UiContext, item: LedgerItem, flags: Map<string, string>): Promise<Html> {
  if (!flags.has(item.runKey)) flags.set(item.runKey, await runKeyFlag(ctx, item.jobName, item.runKey));
  const severalDestinations = (ctx.pipelines.get(item.jobName)?.destinations.length ?? 1) > 1;
  const commands = reviewCommands(item, { runFlag: flags.get(item.runKey)!, severalDestinations });
  return html`<tr class="review-item" data-reference="${item.sourceReference}">
<td>${item.destination}</td><td>${item.sourceReference}</td><td>${item.status}${item.failureKind ? ` (${item.failureKind})` : ''}</td><td>${item.attempts}</td>
<td><a href="${runHref(item.jobName, item.runKey)}">${item.runKey}</a></td><td><pre>${item.lastError ?? ''}</pre></td>
<td>${commands.map((c) => html`<div class="meta">${c.label}:</div><code class="cmd">${c.command}</code>`)}</td></tr>`;
}

/**
 * Ledger items in review or failed, per pipeline, oldest first, with the commands that resolve
 * each (the page runs none of them). `only`: one pipeline, {@link PAGE_SIZE} items a page.
 */
export async function reviewView(ctx: UiContext, options: { only?: string; page: number }): Promise<Html> {
  const counts = await countItemsNeedingOperator(ctx.db, options.only);
  const jobs = Object.keys(counts).sort();
  if (jobs.length === 0) return html`<p class="empty">no ledger items in review or failed${options.only ? ` for ${options.only}` : ''}</p>`;
  const sections: Html[] = [];
  const flags = new Map<string, string>();
  for (const job of jobs) {
    const page = options.only === job ? options.page : 1;
    const items = await selectItemsNeedingOperator(ctx.db, { jobName: job, limit: PAGE_SIZE + 1, offset: (page - 1) * PAGE_SIZE });
    const rows: Html[] = [];
    for (const item of items.slice(0, PAGE_SIZE)) rows.push(await itemRow(ctx, item, flags));
    sections.push(html`<section class="card" data-pipeline="${job}">
<h2>${job}: ${counts[job]!.review} in review, ${counts[job]!.failed} failed</h2>
<p class="meta">Check the destination for each reference first: the page shows the commands and runs none of them.</p>
<table class="review"><thead><tr><th>destination</th><th>reference</th><th>status</th><th>attempts</th><th>run key</th><th>last error</th><th>to resolve</th></tr></thead><tbody>${rows}</tbody></table>
${pager({ page, hasMore: items.length > PAGE_SIZE, link: (p) => href('/review', { pipeline: job, page: p }), what: 'items' })}
</section>`);
  }
  return html`${sections}`;
}
