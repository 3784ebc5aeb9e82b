import { DateTime } from 'luxon';
import { redactUrl } from '../config/redact-url.ts';
import type { PipelineDefinition } from '../pipeline/pipeline-definition.ts';
import { listJobNames, listJobRuns, listJobRunsBetween, runDateRange } from '../runs/job-runs-queries.ts';
import { CALENDAR_DAYS, CALENDAR_STATE_LABELS, calendarStart, runCalendar, shiftDate, type CalendarState } from './run-calendar.ts';
import { summaryLine } from './run-summary.ts';
import { PAGE_SIZE, type UiContext } from './ui-context.ts';
import { html, type Html } from './ui-html.ts';
import { duration, href, instant, pager, runHref } from './ui-layout.ts';
import { badge, runState } from './run-state.ts';

const ISO_DATE = /^\d{4}-\d{2}-\d{2}$/;

function legend(): Html {
  return html`<div class="legend">${(Object.keys(CALENDAR_STATE_LABELS) as CalendarState[]).map((s) => html`<span><i class="day s-${s}"></i>${CALENDAR_STATE_LABELS[s]}</span>`)}</div>`;
}

/**
 * The last day of a pipeline's calendar: `end` when it is a date, else today in its time zone,
 * or its newest run key when that is older than the window ending today (a history that stopped).
 */
function calendarEnd(end: string | undefined, today: string, lastRunDate: string | undefined): string {
  if (end !== undefined && ISO_DATE.test(end) && DateTime.fromISO(end).isValid) return end;
  if (lastRunDate !== undefined && lastRunDate < calendarStart(today)) return lastRunDate;
  return today;
}

/** One pipeline's card: definition, last run, and the calendar of its run keys over {@link CALENDAR_DAYS} days. */
async function pipelineCard(ctx: UiContext, name: string, pipeline: PipelineDefinition | undefined, options: { end?: string; linkTitle: boolean }): Promise<Html> {
  const timeZone = pipeline?.timeZone ?? 'UTC';
  const today = DateTime.fromMillis(ctx.now(), { zone: timeZone }).toISODate()!;
  const range = await runDateRange(ctx.db, name);
  const end = calendarEnd(options.end, today, range?.last);
  const runs = await listJobRunsBetween(ctx.db, { jobName: name, from: calendarStart(end), to: end });
  const dead = new Set<string>();
  for (const run of runs) if (run.status === 'started' && (await runState(ctx, run)).state === 'dead') dead.add(run.runKey);
  const days = runCalendar({ runs, end, dead, firstRunDate: range?.first, today });
  const [last] = await listJobRuns(ctx.db, { jobName: name, limit: 1 });
  const lastState = last ? await runState(ctx, last) : undefined;
  const destinations = pipeline?.destinations ?? [];
  const counts = days.reduce<Partial<Record<CalendarState, number>>>((acc, d) => ({ ...acc, [d.state]: (acc[d.state] ?? 0) + 1 }), {});
  const tally = (Object.entries(counts) as [CalendarState, number][]).filter(([s]) => s !== 'none').map(([s, n]) => `${n} ${CALENDAR_STATE_LABELS[s]}`).join(' · ');
  return html`<section class="card pipeline" data-pipeline="${name}">
<h2>${options.linkTitle ? html`<a href="${href(`/pipelines/${encodeURIComponent(name)}`, {})}">${name}</a>` : name}</h2>
${pipeline ? html`<div class="meta">${pipeline.description}</div>` : html`<div class="meta">not in pipelines/ (runs recorded in the database only)</div>`}
<table class="facts"><tbody>
<tr><th>time zone</th><td>${timeZone}</td></tr>
<tr><th>destinations</th><td>${destinations.length === 0 ? html`<span class="empty">none</span>` : destinations.map((d) => html`<div><b>${d.name}</b> · ${d.strategy}${ctx.config.destinations[d.name] ? html` · <code>${redactUrl(ctx.config.destinations[d.name]!.url)}</code>` : ''}</div>`)}</td></tr>
<tr><th>last run</th><td>${last
    ? html`<a href="${runHref(name, last.runKey)}">${last.runKey}</a> ${badge(lastState!.state, lastState!.why)} · ${instant(last.startedAt)}${last.finishedAt ? html` · ${duration(Date.parse(last.finishedAt) - Date.parse(last.startedAt))}` : ''}<div class="summary"><code>${summaryLine(last)}</code></div>`
    : html`<span class="empty">no runs recorded</span>`}</td></tr>
</tbody></table>
<h3 class="meta">run keys ${calendarStart(end)} to ${end} (${timeZone}) · ${tally || 'no runs'}</h3>
<div class="calendar" role="list">${days.map((d) =>
    d.run
      ? html`<a role="listitem" class="day s-${d.state}" data-date="${d.date}" data-state="${d.state}" title="${d.date}: ${CALENDAR_STATE_LABELS[d.state]}" href="${runHref(name, d.date)}"></a>`
      : html`<span role="listitem" class="day s-${d.state}" data-date="${d.date}" data-state="${d.state}" title="${d.date}: ${CALENDAR_STATE_LABELS[d.state]}"></span>`,
  )}</div>
<div class="pager"><a href="${href(`/pipelines/${encodeURIComponent(name)}`, { end: shiftDate(end, -CALENDAR_DAYS) })}">← ${CALENDAR_DAYS} days earlier</a>${end < today ? html`<a href="${href(`/pipelines/${encodeURIComponent(name)}`, { end: shiftDate(end, CALENDAR_DAYS) > today ? today : shiftDate(end, CALENDAR_DAYS) })}">${CALENDAR_DAYS} days later →</a>` : ''}</div>
</section>`;
}

/** Every pipeline: those in `pipelines/` and any other with runs recorded, each with its calendar. */
export async function pipelinesView(ctx: UiContext): Promise<Html> {
  const names = [...new Set([...ctx.pipelines.keys(), ...(await listJobNames(ctx.db))])].sort();
  if (names.length === 0) return html`<p class="empty">no pipelines in pipelines/ and no runs recorded</p>`;
  const cards: Html[] = [];
  for (const name of names) cards.push(await pipelineCard(ctx, name, ctx.pipelines.get(name), { linkTitle: true }));
  return html`${legend()}${cards}`;
}

/** One pipeline: its card (calendar ending on `end`) and its run history, {@link PAGE_SIZE} run keys a page. */
export async function pipelineView(ctx: UiContext, name: string, options: { end?: string; page: number }): Promise<Html> {
  const card = await pipelineCard(ctx, name, ctx.pipelines.get(name), { linkTitle: false, ...(options.end ? { end: options.end } : {}) });
  const runs = await listJobRuns(ctx.db, { jobName: name, limit: PAGE_SIZE + 1, offset: (options.page - 1) * PAGE_SIZE });
  const rows: Html[] = [];
  for (const run of runs.slice(0, PAGE_SIZE)) {
    const state = await runState(ctx, run);
    rows.push(html`<tr><td><a href="${runHref(name, run.runKey)}">${run.runKey}</a></td><td>${badge(state.state, state.why)}</td><td>${run.attempts}${run.diedAttempts ? ` (${run.diedAttempts} died)` : ''}</td><td>${run.triggeredBy}</td><td>${instant(run.startedAt)}</td><td><code>${summaryLine(run)}</code></td></tr>`);
  }
  return html`${legend()}${card}
<h2>Run history</h2>
${rows.length === 0 ? html`<p class="empty">no runs recorded</p>` : html`<table class="runs"><thead><tr><th>run key</th><th>status</th><th>attempts</th><th>triggered by</th><th>started</th><th>summary</th></tr></thead><tbody>${rows}</tbody></table>`}
${pager({ page: options.page, hasMore: runs.length > PAGE_SIZE, link: (page) => href(`/pipelines/${encodeURIComponent(name)}`, { end: options.end, page }), what: 'runs' })}`;
}
