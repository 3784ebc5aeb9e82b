import type { JobRun } from '../runs/job-run.ts';
import type { RecordedAttempt } from '../runs/recorded-attempt.ts';
import type { CalendarState } from './run-calendar.ts';
import { html, type Html } from './ui-html.ts';
import { duration, instant } from './ui-layout.ts';

/** How a run's latest attempt stands now, when it is still `started` (see `runState`). */
export interface LatestAttemptState {
  readonly state: CalendarState | 'started';
  readonly why?: string;
}

/** The calendar colour of an attempt's ending; an ending idem adds later is shown in neutral colours, with its own name. */
const COLOURS: Readonly<Record<string, CalendarState>> = { completed: 'completed', noop: 'noop', failed: 'failed', needs_review: 'needs_review', dead: 'dead', lock_lost: 'failed', running: 'running', stopped: 'stopped', unavailable: 'unavailable' };

/** How an attempt ended (or stands): its status (the badge), and the words the badge does not say. */
function ending(a: RecordedAttempt, live: LatestAttemptState | undefined): { status: string; words: string } {
  if (a.status === 'started') {
    if (live?.state === 'dead') return { status: 'dead', words: `not recorded: it died (${live.why ?? 'its process is gone'})` };
    if (live !== undefined) return { status: 'running', words: 'still running' };
    return { status: 'dead', words: 'never recorded its end' };
  }
  const by = a.endedBy === null ? '' : `by ${a.endedBy}`;
  switch (a.status) {
    case 'noop':
      return { status: a.status, words: 'the run key was already completed: nothing to do' };
    case 'needs_review':
      return { status: a.status, words: `done; ledger items need an operator ${by}` };
    case 'unavailable':
      return { status: a.status, words: 'not finished: items failed transiently (the destination stayed unavailable); a rerun later retries them' };
    case 'stopped':
      return { status: a.status, words: 'stopped by a signal, at a stage boundary; a rerun resumes' };
    case 'lock_lost':
      return { status: a.status, words: 'lost its app lock: it wrote nothing more' };
    case 'dead':
      return { status: a.status, words: `it never recorded its end (killed, its host lost, or its lock lost); found ${by}` };
    default:
      return { status: a.status, words: by };
  }
}

/** An error in a cell: its first line, and the rest behind a disclosure (the page runs no script). */
function errorCell(error: string | null): Html | string {
  if (error === null) return '';
  const [first, ...rest] = error.split('\n');
  return rest.length === 0 ? html`<pre class="attempt-error">${first}</pre>` : html`<details><summary><code>${first}</code></summary><pre class="attempt-error">${rest.join('\n')}</pre></details>`;
}

/**
 * The rows of a run's attempts table, newest first: each attempt's number (`(latest)` on the
 * run's latest; none for a no-op), who started it (`triggered_by`, OS user@host and pid, the
 * command line), when it started and ended, how it ended (with its error) and its exit code. The
 * latest attempt, while `started`, stands as `live` says (running, or dead and why).
 */
export function attemptRows(run: JobRun, attempts: readonly RecordedAttempt[], live: LatestAttemptState): Html[] {
  return attempts.map((a) => {
    const latest = a.attempt === run.attempts;
    const { status, words } = ending(a, latest && run.status === 'started' ? live : undefined);
    const ended = a.status === 'dead' ? html`${instant(a.endedAt)}<br><span class="meta">last heartbeat</span>` : instant(a.endedAt);
    const took = a.endedAt === null || a.status === 'noop' ? '-' : duration(Date.parse(a.endedAt) - Date.parse(a.startedAt));
    return html`<tr class="attempt" data-attempt="${a.attempt ?? ''}" data-status="${status}">
<td>${a.attempt === null ? '-' : `${a.attempt}${latest ? ' (latest)' : ''}`}</td>
<td><b>${a.triggeredBy}</b><br><span class="meta">${a.osUser ?? '?'}@${a.host ?? '?'} · pid ${a.pid ?? '?'}</span>${a.command === null ? '' : html`<br><code class="command">${a.command}</code>`}</td>
<td>${instant(a.startedAt)}</td><td>${ended}</td><td>${took}</td>
<td><span class="badge s-${COLOURS[status] ?? 'none'}">${status.replaceAll('_', ' ')}</span> ${words}${errorCell(a.error)}</td>
<td>${a.exitCode ?? '-'}</td>
</tr>`;
  });
}
