import type { JobRun } from '../runs/job-run.ts';
import { runLiveness } from '../runs/run-liveness.ts';
import { CALENDAR_STATE_LABELS, type CalendarState } from './run-calendar.ts';
import type { UiContext } from './ui-context.ts';
import { html, type Html } from './ui-html.ts';

/** A run's status as the calendar names it (`dead` and `running` for a started run). */
export async function runState(ctx: UiContext, run: JobRun): Promise<{ state: CalendarState | 'started'; why?: string }> {
  const liveness = await runLiveness(ctx.db, run, ctx.now(), ctx.staleMs);
  if (liveness.state === 'dead') return { state: 'dead', why: liveness.why };
  if (liveness.state === 'running') return { state: 'running' };
  return { state: run.status };
}

/** A coloured status label, with the words. */
export function badge(state: CalendarState | 'started', title?: string): Html {
  return html`<span class="badge s-${state}"${title ? html` title="${title}"` : ''}>${CALENDAR_STATE_LABELS[state as CalendarState] ?? state}</span>`;
}
