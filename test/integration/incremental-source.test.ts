import { afterEach, beforeEach, expect, it } from 'vitest';
import { pipeline } from '../../pipelines/online-retail-products.ts';
import { findJobRun, completePostedJobRun, completeReviewedJobRun, enterPostStage, finishJobRun, startJobRun } from '../../src/runs/job-runs-queries.ts';
import { findSourceMark, setPendingSourceMark } from '../../src/runs/source-marks-queries.ts';
import type { SandboxProduct } from '../../src/sandbox/validate-sandbox-products.ts';
import { column } from '../../src/column/column-type.ts';
import { describeOneDialect } from '../helpers/dialects.ts';
import { openFaultWorld, type FaultWorld } from '../helpers/open-fault-world.ts';
import { runCli, runCliWhenUnlocked, summaryOf } from '../helpers/run-cli.ts';
import { sourcesEnv } from '../helpers/sandbox.ts';
import { waitForAppLock } from '../helpers/wait-for-app-lock.ts';

const PIPELINE = pipeline.name;
const TODAY = '2026-12-01';
const YESTERDAY = '2026-11-30';
/** Six products, each changed at its own instant; P6 last. */
const CATALOGUE: SandboxProduct[] = Array.from({ length: 6 }, (_, i) => ({
  stock_code: `P${i + 1}`,
  description: `ITEM ${i + 1}`,
  unit_price: `${i + 1}.50`,
  updated_at: `2026-11-0${i + 1}T10:00:00.000Z`,
}));
const FIRST_MARK = '2026-11-06T10:00:00.000Z';

describeOneDialect('an incremental HTTP source: only what changed since the last completed run', (dialect) => {
  let world: FaultWorld;
  let env: Record<string, string>;
  const run = (date: string, ...extra: string[]) => runCli(['run', PIPELINE, '--date', date, ...extra], env);
  const mark = () => findSourceMark(world.db, PIPELINE);
  /** The target, by stock code: description, price, and the run key that last changed the row. */
  const readProducts = async () =>
    Object.fromEntries(
      ((await world.db.knex('products').select('source_reference', 'description', 'unit_price', 'last_changed_run_key')) as Record<string, unknown>[]).map((r) => [
        r.source_reference,
        `${r.description} ${world.db.adapter.fromDriverValue(column.decimal(10, 3), r.unit_price)} ${r.last_changed_run_key}`,
      ]),
    );
  /** The `updated_since` each GET /products request sent. */
  const sentMarks = () => world.sandbox.state.stats().requests.filter((r) => r.path === '/products').map((r) => new URLSearchParams(r.query).get('updated_since'));
  const change = (code: string, fields: Record<string, unknown>): string => world.sandbox.state.updateProduct(code, fields)!.updated_at as string;

  beforeEach(async (context) => {
    world = await openFaultWorld(dialect, context.task.name);
    world.sandbox.state.setProducts(CATALOGUE);
    env = { ...world.env(), IDEM_SOURCES: sourcesEnv(world.sandbox) };
    const first = await run(TODAY);
    expect([first.code, summaryOf(first).outcome]).toEqual([0, 'completed']);
    expect(summaryOf(first).counts.extract).toMatchObject({ rows: 6, since: null, upTo: FIRST_MARK });
    expect(summaryOf(first).counts.upsert).toMatchObject({ inserted: 6, updated: 0, unchanged: 0 });
    expect(await mark()).toMatchObject({ mark: FIRST_MARK, runKey: TODAY, pendingMark: null, pendingRunKey: null });
  });

  afterEach(() => world?.close());

  it('a change at the source is picked up by a plain run of the same date: exactly the changed product is written', async () => {
    const changedAt = change('P3', { description: 'ITEM 3 (NEW)' });

    // A dry run reads since the mark too, and moves nothing.
    const planned = await run(TODAY, '--dry-run');
    expect(summaryOf(planned).plan.target).toMatchObject({ insert: { count: 0 }, update: { count: 1, first: ['P3'] }, leave: { count: 1 } });
    expect(await mark()).toMatchObject({ mark: FIRST_MARK, pendingMark: null });

    const before = await readProducts();
    const again = await run(TODAY);
    expect([again.code, summaryOf(again).outcome]).toEqual([0, 'completed']);
    // P6 is read again at the mark (the mark is inclusive) and left as it is; P3 is the one change.
    expect(summaryOf(again).counts.extract).toMatchObject({ rows: 2, since: FIRST_MARK, upTo: changedAt });
    expect(summaryOf(again).counts.upsert).toMatchObject({ inserted: 0, updated: 1, unchanged: 1 });
    expect(await readProducts()).toEqual({ ...before, P3: `ITEM 3 (NEW) 3.500 ${TODAY}` });
    expect(await mark()).toMatchObject({ mark: changedAt, runKey: TODAY, pendingMark: null });
    expect(sentMarks()).toEqual([null, FIRST_MARK, FIRST_MARK]);

    // Nothing changed since: the next plain run reads the product at the mark and writes nothing.
    const third = await run(TODAY);
    expect(summaryOf(third).counts.extract).toMatchObject({ rows: 1, since: changedAt, upTo: changedAt });
    expect(summaryOf(third).counts.upsert).toMatchObject({ inserted: 0, updated: 0, unchanged: 1 });
    expect(await findJobRun(world.db, PIPELINE, TODAY)).toMatchObject({ status: 'completed', attempts: 3 });
  });

  it.each(['after-stage', 'after-upsert', 'before-complete'] as const)('a run killed at %s leaves the mark where it was; the plain rerun completes and moves it', async (point) => {
    const changedAt = change('P2', { unit_price: '9.99' });
    const crashed = await runCli(['run', PIPELINE, '--date', TODAY], { ...env, IDEM_FAILPOINTS: `${point}=kill` });
    expect(crashed.signal).toBe('SIGKILL');
    expect(await findJobRun(world.db, PIPELINE, TODAY)).toMatchObject({ status: 'started' });
    // What the run read is pending, for its completion; the mark has not moved.
    expect(await mark()).toMatchObject({ mark: FIRST_MARK, runKey: TODAY, pendingMark: changedAt, pendingRunKey: TODAY });

    await waitForAppLock(world.db, PIPELINE);
    const rerun = await runCliWhenUnlocked(['run', PIPELINE, '--date', TODAY], env);
    expect([rerun.code, summaryOf(rerun).outcome]).toEqual([0, 'completed']);
    // Read again from the old mark: P6 at it, and P2, which the killed run upserted already unless it died before.
    expect(summaryOf(rerun).counts.extract).toMatchObject({ rows: 2, since: FIRST_MARK, upTo: changedAt });
    expect(summaryOf(rerun).counts.upsert).toMatchObject(point === 'after-stage' ? { updated: 1, unchanged: 1 } : { updated: 0, unchanged: 2 });
    expect((await readProducts()).P2).toBe(`ITEM 2 9.990 ${TODAY}`);
    expect(await mark()).toMatchObject({ mark: changedAt, runKey: TODAY, pendingMark: null });
  });

  it('an older completed run key stays a no-op; with --force it reads everything and moves the mark to what it read', async () => {
    // Tomorrow's run reads what changed since today's: nothing new but P6 at the mark.
    const tomorrow = await run('2026-12-02');
    expect(summaryOf(tomorrow).counts.extract).toMatchObject({ rows: 1, since: FIRST_MARK });
    expect(await mark()).toMatchObject({ mark: FIRST_MARK, runKey: '2026-12-02' });

    const changedAt = change('P4', { description: 'ITEM 4 (NEW)' });
    const older = await run(TODAY);
    expect([older.code, summaryOf(older).outcome]).toEqual([0, 'noop']);
    expect(summaryOf(older).msg).toContain('2026-12-02 is its newest completed run key, and a plain run of it (or of a later date) reads what changed since; --force reads everything under this one');
    // Neither read nor moved anything.
    expect(sentMarks()).toEqual([null, FIRST_MARK]);
    expect(await mark()).toMatchObject({ mark: FIRST_MARK, runKey: '2026-12-02' });

    // A date never run before runs, whatever its age: it reads what changed since the mark.
    const yesterday = await run(YESTERDAY);
    expect(summaryOf(yesterday).counts.extract).toMatchObject({ rows: 2, since: FIRST_MARK, upTo: changedAt });
    expect(summaryOf(yesterday).counts.upsert).toMatchObject({ inserted: 0, updated: 1, unchanged: 1 });
    expect(await mark()).toMatchObject({ mark: changedAt, runKey: YESTERDAY });

    const forced = await run(TODAY, '--force');
    expect([forced.code, summaryOf(forced).outcome]).toEqual([0, 'completed']);
    expect(summaryOf(forced).counts.extract).toMatchObject({ rows: 6, since: null, upTo: changedAt });
    expect(summaryOf(forced).counts.upsert).toMatchObject({ inserted: 0, updated: 0, unchanged: 6 });
    expect(sentMarks().at(-1)).toBeNull();
    expect(await mark()).toMatchObject({ mark: changedAt, runKey: TODAY });
    expect(await findJobRun(world.db, PIPELINE, TODAY)).toMatchObject({ status: 'completed', attempts: 2 });

    // --force-reconcile implies --force (docs/operating.md): it too reads everything, the mark not sent.
    const reconciled = await run(TODAY, '--force-reconcile');
    expect([reconciled.code, summaryOf(reconciled).outcome]).toEqual([0, 'completed']);
    expect(summaryOf(reconciled).counts.extract).toMatchObject({ rows: 6, since: null, upTo: changedAt });
    expect(sentMarks().at(-1)).toBeNull();
    expect(await findJobRun(world.db, PIPELINE, TODAY)).toMatchObject({ status: 'completed', attempts: 3 });
  });

  it('the mark moves with the run key becoming completed, however it does, and never for a run that ends otherwise', async () => {
    const { db } = world;
    const now = new Date().toISOString();
    const pending = (runKey: string, value: string) => setPendingSourceMark(db, { jobName: PIPELINE, runKey, mark: value, now });
    const posting = async (runKey: string) => {
      const { jobRun } = await startJobRun(db, { jobName: PIPELINE, runKey, triggeredBy: 'test', now });
      const attempt = { id: jobRun.id, attempt: jobRun.attempts };
      await enterPostStage(db, attempt, { counts: {}, now });
      return attempt;
    };

    // Failed, or waiting for review: the mark stays.
    const failed = await posting('2026-12-03');
    await pending('2026-12-03', '2026-12-03T00:00:00.000Z');
    expect(await finishJobRun(db, failed, { status: 'failed', counts: {}, error: 'boom', now })).toBe(true);
    const review = await posting('2026-12-04');
    await pending('2026-12-04', '2026-12-04T00:00:00.000Z');
    expect(await completePostedJobRun(db, review, { status: 'needs_review', counts: {}, now })).toBe(true);
    expect(await mark()).toMatchObject({ mark: FIRST_MARK, pendingMark: '2026-12-04T00:00:00.000Z', pendingRunKey: '2026-12-04' });

    // The review resolved: the run key is completed, and its mark moves with it.
    expect(await completeReviewedJobRun(db, { jobName: PIPELINE, runKey: '2026-12-04', by: 'idem review --mark-posted (test)', now })).toBe(true);
    expect(await mark()).toMatchObject({ mark: '2026-12-04T00:00:00.000Z', runKey: '2026-12-04', pendingMark: null });

    // A run key completed after another recorded its pending mark does not take that one.
    const stale = await posting('2026-12-05');
    await pending('2026-12-05', '2026-12-05T00:00:00.000Z');
    await pending('2026-12-06', '2026-12-06T00:00:00.000Z');
    expect(await completePostedJobRun(db, stale, { status: 'completed', counts: {}, now })).toBe(true);
    expect(await mark()).toMatchObject({ mark: '2026-12-04T00:00:00.000Z', pendingRunKey: '2026-12-06' });
    const latest = await posting('2026-12-06');
    expect(await completePostedJobRun(db, latest, { status: 'completed', counts: {}, now })).toBe(true);
    expect(await mark()).toMatchObject({ mark: '2026-12-06T00:00:00.000Z', runKey: '2026-12-06', pendingMark: null, pendingRunKey: null });
  });
});
