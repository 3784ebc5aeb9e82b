import { describe, expect, it } from 'vitest';
import { resolveBusinessDate } from '../../src/runs/business-date.ts';
import { pipeline } from '../../pipelines/online-retail-invoices.ts';
import { describeEachDialect, type TestDialect } from '../helpers/dialects.ts';
import { openFaultWorld, type FaultWorld } from '../helpers/open-fault-world.ts';
import { readInvoices } from '../helpers/read-target.ts';
import { runCli, summaryOf, type CliResult } from '../helpers/run-cli.ts';

const LONDON = 'Europe/London';
// Europe/London in 2011: BST from 2011-03-27 01:00Z (01:00 GMT → 02:00 BST) to 2011-10-30 01:00Z
// (02:00 BST → 01:00 GMT), so 01:00–02:00 local happens twice on 2011-10-30.
const SPRING = '2011-03-27';
const AUTUMN = '2011-10-30';

describe('resolveBusinessDate around both clock changes in Europe/London', () => {
  it.each([
    ['today', '2011-03-26T23:59:59Z', '2011-03-26', '23:59:59 GMT'],
    ['today', '2011-03-27T00:30:00Z', SPRING, '00:30 GMT, before the gap'],
    ['yesterday', '2011-03-27T00:30:00Z', '2011-03-26', '00:30 GMT, before the gap'],
    ['today', '2011-03-27T01:00:00Z', SPRING, '02:00 BST, right after the gap'],
    ['yesterday', '2011-03-27T01:00:00Z', '2011-03-26', '02:00 BST, right after the gap'],
    ['today', '2011-03-27T22:59:59Z', SPRING, '23:59:59 BST'],
    ['today', '2011-03-27T23:00:00Z', '2011-03-28', '00:00 BST the next day'],
    ['today', '2011-10-29T23:00:00Z', AUTUMN, '00:00 BST'],
    ['today', '2011-10-30T00:30:00Z', AUTUMN, '01:30 BST, the first 01:30'],
    ['today', '2011-10-30T01:30:00Z', AUTUMN, '01:30 GMT, the second 01:30'],
    ['yesterday', '2011-10-30T00:30:00Z', '2011-10-29', '01:30 BST'],
    ['yesterday', '2011-10-30T01:30:00Z', '2011-10-29', '01:30 GMT'],
    ['today', '2011-10-30T23:59:59Z', AUTUMN, '23:59:59 GMT'],
    ['today', '2011-10-31T00:00:00Z', '2011-10-31', '00:00 GMT the next day'],
  ])('%s at %s (%s) is %s', (value, instant, expected) => {
    expect(resolveBusinessDate(value, LONDON, new Date(instant))).toBe(expected);
  });

  it("answers the same whatever the process's own time zone", () => {
    const saved = process.env.TZ;
    const instants = ['2011-03-27T00:30:00Z', '2011-03-27T01:00:00Z', '2011-10-30T00:30:00Z', '2011-10-30T01:30:00Z', '2011-10-30T23:30:00Z'];
    const answers = (): string[] => instants.flatMap((i) => ['today', 'yesterday'].map((v) => resolveBusinessDate(v, LONDON, new Date(i))));
    const expected = answers();
    try {
      // Node re-reads TZ when it changes; UTC+14 and UTC-10 put the server on another date than London.
      for (const zone of ['Pacific/Kiritimati', 'Pacific/Honolulu', 'America/New_York']) {
        process.env.TZ = zone;
        expect(new Date('2011-10-30T12:00:00Z').getTimezoneOffset()).not.toBe(0);
        expect(answers()).toEqual(expected);
      }
    } finally {
      if (saved === undefined) delete process.env.TZ;
      else process.env.TZ = saved;
    }
  });
});

/** The log line in which `idem run` says which date `--date today|yesterday` named. */
const resolvedLine = (result: CliResult) => result.logs.find((l) => typeof l.msg === 'string' && l.msg.startsWith('--date '));

/** Runs `work` in a fresh world, then closes it. */
async function inWorld<T>(dialect: TestDialect, identity: string, work: (world: FaultWorld) => Promise<T>): Promise<T> {
  const world = await openFaultWorld(dialect, identity);
  try {
    return await work(world);
  } finally {
    await world.close();
  }
}

// Each test has its own database and sandbox, so they run concurrently.
describeEachDialect('--date today / yesterday on the nights the clocks change', (dialect) => {
  /** `idem run … --date D` at the instant `now`, on a server whose own zone is New York (a day behind London at these hours). */
  const runAt = (world: FaultWorld, date: string, now: string) =>
    runCli(['run', pipeline.name, '--date', date], { ...world.env(), IDEM_NOW: now, TZ: 'America/New_York' });

  it.concurrent("yesterday is resolved in the pipeline's zone, not the server's, and the log says which date it named", () =>
    inWorld(dialect, 'clock-yesterday', async (world) => {
      // 00:30 in London on 2010-12-02 (GMT); 19:30 the day before in New York.
      const result = await runAt(world, 'yesterday', '2010-12-02T00:30:00Z');
      expect(result.code).toBe(0);
      expect(resolvedLine(result)).toMatchObject({ msg: '--date yesterday is 2010-12-01 in Europe/London', date: 'yesterday', resolved: '2010-12-01', timeZone: LONDON });
      expect(summaryOf(result)).toMatchObject({ runKey: '2010-12-01', outcome: 'completed' });
    }));

  it.concurrent('autumn: two fires in the repeated 01:00–02:00 hour are one run and one no-op, both for 2011-10-30', () =>
    inWorld(dialect, 'clock-autumn', async (world) => {
      const first = await runAt(world, 'today', '2011-10-30T00:30:00Z'); // 01:30 BST
      expect(first.code).toBe(0);
      expect(resolvedLine(first)!.msg).toBe(`--date today is ${AUTUMN} in Europe/London`);
      expect(summaryOf(first)).toMatchObject({ runKey: AUTUMN, outcome: 'completed' });
      const posted = world.sandbox.state.postRequests;

      const second = await runAt(world, 'today', '2011-10-30T01:30:00Z'); // 01:30 GMT, an hour later
      expect(second.code).toBe(0);
      expect(resolvedLine(second)!.msg).toBe(`--date today is ${AUTUMN} in Europe/London`);
      expect(summaryOf(second)).toMatchObject({ runKey: AUTUMN, outcome: 'noop' });
      expect(world.sandbox.state.postRequests).toBe(posted);
      expect(await world.db.knex('job_runs').select('run_key', 'status', 'attempts')).toEqual([{ run_key: AUTUMN, status: 'completed', attempts: 1 }]);
    }));

  it.concurrent('spring: a fire right after the gap names 2011-03-27; yesterday at 00:30 GMT names 2011-03-26', () =>
    inWorld(dialect, 'clock-spring', async (world) => {
      const afterGap = await runAt(world, 'today', '2011-03-27T01:00:00Z'); // 02:00 BST
      expect(afterGap.code).toBe(0);
      expect(summaryOf(afterGap)).toMatchObject({ runKey: SPRING, outcome: 'completed' });

      // There is no file for 2011-03-26 (a Saturday): the pipeline declares missing: 'skip'.
      const beforeGap = await runAt(world, 'yesterday', '2011-03-27T00:30:00Z');
      expect(beforeGap.code).toBe(0);
      expect(resolvedLine(beforeGap)!.msg).toBe('--date yesterday is 2011-03-26 in Europe/London');
      expect(summaryOf(beforeGap)).toMatchObject({ runKey: '2011-03-26', outcome: 'skipped' });
    }));
});

/** What runs for both DST days leave under one server time zone, on a fresh database and sandbox. */
const runBothDstDays = (dialect: TestDialect, tz: string): Promise<{ rows: unknown[]; remote: unknown[] }> =>
  inWorld(dialect, `clock-${tz}`, async (world) => {
    for (const date of [SPRING, AUTUMN]) expect((await runCli(['run', pipeline.name, '--date', date], { ...world.env(), TZ: tz })).code).toBe(0);
    const remote = world.sandbox.state
      .records()
      .map(({ id: _id, created_at: _created, updated_at: _updated, ...record }) => record)
      .sort((a, b) => String(a.reference).localeCompare(String(b.reference)));
    return { rows: await readInvoices(world.db, { stamps: false }), remote };
  });

describeEachDialect('the server time zone changes nothing', (dialect) => {
  it('2011-03-27 and 2011-10-30 under TZ=UTC, Europe/Berlin and America/New_York: identical rows and remote records', async () => {
    // Three databases, run side by side.
    const [utc, berlin, newYork] = await Promise.all(['UTC', 'Europe/Berlin', 'America/New_York'].map((tz) => runBothDstDays(dialect, tz)));
    expect(utc.rows.length).toBeGreaterThan(0);
    expect(utc.remote).toHaveLength(utc.rows.length);
    // Local shop times became the right instants: 10:16 BST and 10:18 GMT.
    expect(utc.rows).toContainEqual(expect.objectContaining({ source_reference: '547834', invoiced_at: '2011-03-27T09:16:00.000Z' }));
    expect(utc.rows).toContainEqual(expect.objectContaining({ source_reference: '573319', invoiced_at: '2011-10-30T10:18:00.000Z' }));
    expect(utc.remote).toContainEqual(expect.objectContaining({ reference: '547834', issued_at: '2011-03-27T09:16:00.000Z' }));
    expect(berlin).toEqual(utc);
    expect(newYork).toEqual(utc);
  });
});
