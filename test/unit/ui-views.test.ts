import { describe, expect, it } from 'vitest';
import type { LedgerItem } from '../../src/ledger/ledger-item.ts';
import type { JobRun } from '../../src/runs/job-run.ts';
import { reviewCommands, shellWord } from '../../src/ui/review-commands.ts';
import { CALENDAR_DAYS, runCalendar } from '../../src/ui/run-calendar.ts';
import { stageChart } from '../../src/ui/stage-chart.ts';
import { html } from '../../src/ui/ui-html.ts';

function run(runKey: string, status: JobRun['status'], counts: Record<string, unknown> | null = null): JobRun {
  return { id: 1, jobName: 'p', runKey, status, attempts: 1, triggeredBy: 'cron', startedAt: '2010-12-01T00:00:00.000Z', finishedAt: null, heartbeatAt: null, counts, error: null, stage: null, diedAttempts: 0 };
}

describe('the run key calendar', () => {
  it('names every state, from the first run key on; before it none, today without a run not yet', () => {
    const runs = [
      run('2010-12-01', 'completed', { upsert: { inserted: 3, updated: 0, unchanged: 0 } }),
      run('2010-12-02', 'completed', { upsert: { inserted: 0, updated: 0, unchanged: 3 }, post: { a: { sent: 0 } } }),
      run('2010-12-03', 'failed'),
      run('2010-12-04', 'needs_review'),
      run('2010-12-05', 'started'),
      run('2010-12-06', 'started'),
    ];
    const days = runCalendar({ runs, end: '2010-12-09', dead: new Set(['2010-12-06']), firstRunDate: '2010-12-01', today: '2010-12-08' });
    expect(days).toHaveLength(CALENDAR_DAYS);
    expect(days[0]!.date).toBe('2010-09-11');
    expect(days.slice(-10).map((d) => `${d.date.slice(8)} ${d.state}`)).toEqual([
      '30 none', '01 completed', '02 noop', '03 failed', '04 needs_review', '05 running', '06 dead', '07 missing', '08 not_yet', '09 none',
    ]);
  });

  it('crosses a change of the clocks without losing or repeating a date', () => {
    const days = runCalendar({ runs: [], end: '2011-03-31', dead: new Set(), firstRunDate: undefined, today: '2011-03-31' });
    const dates = days.map((d) => d.date);
    expect(new Set(dates).size).toBe(CALENDAR_DAYS);
    expect(dates).toContain('2011-03-27');
    expect(days.every((d) => d.state === 'none')).toBe(true);
  });
});

describe('the commands the Review view shows', () => {
  const item = (over: Partial<LedgerItem>): LedgerItem => ({
    id: 1, jobName: 'orders', destination: 'books', sourceSystem: 's', sourceReference: 'A-1', version: 'v', idempotencyKey: 'k', runKey: '2010-12-01',
    status: 'review', failureKind: null, attempts: 1, remoteReference: null, lastHttpStatus: 504, lastError: null, ...over,
  });

  it('quotes a reference the shell would read otherwise', () => {
    expect(shellWord('536365')).toBe('536365');
    expect(shellWord("it's $(rm -rf ~)")).toBe(`'it'\\''s $(rm -rf ~)'`);
  });

  it('gives mark-posted and retry for review, with --destination when there are several; a rerun for a transient failure', () => {
    expect(reviewCommands(item({ sourceReference: 'A 1' }), { runFlag: '--date 2010-12-01', severalDestinations: true }).map((c) => c.command)).toEqual([
      "idem review orders --mark-posted 'A 1' --remote-ref <its id there> --destination books",
      "idem review orders --retry 'A 1' --destination books",
      'idem run orders --date 2010-12-01',
    ]);
    expect(reviewCommands(item({ status: 'failed', failureKind: 'transient' }), { runFlag: '--date 2010-12-01', severalDestinations: false }).map((c) => c.command)).toEqual([
      'idem run orders --date 2010-12-01',
    ]);
  });
});

describe('escaping', () => {
  it('escapes every interpolated value, in text and in attributes', () => {
    const hostile = `<script>alert(1)</script>" onmouseover="x`;
    expect(html`<td title="${hostile}">${hostile}</td>`.toString()).toBe(
      '<td title="&lt;script&gt;alert(1)&lt;/script&gt;&quot; onmouseover=&quot;x">&lt;script&gt;alert(1)&lt;/script&gt;&quot; onmouseover=&quot;x</td>',
    );
  });

  it('escapes the labels of the stage chart, and scales its bars to the longest', () => {
    const svg = stageChart([{ label: 'post: <b>', ms: 500 }, { label: 'upsert', ms: 1000 }]).toString();
    expect(svg).toContain('post: &lt;b&gt;');
    expect(svg).not.toContain('<b>');
    expect(svg).toMatch(/width="190" height="18"/);
    expect(svg).toMatch(/width="380" height="18"/);
  });
});
