import { runIdemChild } from '../child-process/start-idem-child.ts';
import { EXIT_CODES } from '../outcome/outcome.ts';
import { checkCleanUpdate } from './check-clean-update.ts';
import { checkRequestBodies } from './check-request-bodies.ts';
import { compareTargetSnapshots } from './compare-target-snapshots.ts';
import { describeChildEnd } from './describe-child-end.ts';
import { standInModulePath } from '../project/load-stand-in-handlers.ts';
import { ledgerTroubleText } from './ledger-trouble-text.ts';
import type { ProveCheck, ProveCheckOutcome } from './prove-check.ts';
import { withProveCase, type ProveCase, type ProveTarget } from './prove-case.ts';
import type { ProveReference } from './prove-reference.ts';
import { remoteTallyText } from './remote-tally-text.ts';
import { stagedRecords } from './staged-records.ts';
import { timeCheck } from './time-check.ts';
import type { UpdateReference } from './update-reference.ts';
import { sourceKindOf } from '../source/source-kinds.ts';

/** What the checks on the first database found. */
export interface CleanRunChecks {
  /** `clean run`, then (when it passed) `second run is a no-op` and, with destinations, `request bodies`: the first lines of the table. */
  readonly first: readonly ProveCheck[];
  /** `--force rerun`, the table's line after the crash checks; undefined when the clean run failed. */
  readonly force: ProveCheck | undefined;
  /** The clean update (see `checkCleanUpdate`), after `--force rerun`; undefined when the clean run failed. */
  readonly update: ProveCheck | undefined;
  /** What the clean update established; undefined when it did not pass (or was not tried). */
  readonly updateReference: UpdateReference | undefined;
  /** What the clean run established; undefined when it failed, and nothing can be compared with it. */
  readonly reference: ProveReference | undefined;
}

/**
 * The checks that share one database, each after the one before: a clean run (the reference:
 * rows, each record once at each destination), the same run again (a no-op that sends nothing),
 * a `--force` rerun (inserts, updates and sends nothing), and the source with one value changed
 * (one update, sent once: see `checkCleanUpdate`).
 */
export async function checkCleanRuns(target: ProveTarget, onCheck?: (check: ProveCheck) => void): Promise<CleanRunChecks> {
  return withProveCase(target, async (c) => {
    let reference: ProveReference | undefined;
    const clean = await timeCheck('clean run', async () => {
      const found = await cleanRun(c);
      reference = found.reference;
      return found.outcome;
    }, onCheck);
    if (!reference) return { first: [clean], force: undefined, update: undefined, updateReference: undefined, reference };
    const ref = reference;
    const noop = await timeCheck('second run is a no-op', () => secondRun(c, ref), onCheck);
    const bodies = c.pipeline.destinations.length > 0 ? [await timeCheck('request bodies', () => checkRequestBodies(c), onCheck)] : [];
    const force = await timeCheck('--force rerun', () => forceRerun(c, ref), onCheck);
    let updateReference: UpdateReference | undefined;
    const update = await timeCheck('update: one value changed, sent once', async () => {
      const found = await checkCleanUpdate(c, ref);
      updateReference = found.update;
      return found.outcome;
    }, onCheck);
    return { first: [clean, noop, ...bodies], force, update, updateReference, reference };
  });
}

async function cleanRun(c: ProveCase): Promise<{ outcome: ProveCheckOutcome; reference?: ProveReference }> {
  const { destinations } = c.pipeline;
  const run = await runIdemChild(c.runArgs, c.env());
  if (run.code !== EXIT_CODES.ok || run.summary?.outcome !== 'completed') {
    // Say why: the destination's answer to the items that did not get through, not only their count.
    const trouble = await c.withDatabase((db) => ledgerTroubleText(db, c.pipeline.name));
    const hint = trouble && c.standIns.sandboxed.length > 0 ? `${c.standIns.sandboxed.join(', ')} stood in by idem's sandbox (POST /invoices): describe the API in ${standInModulePath(c.pipeline.name)}` : undefined;
    return { outcome: { result: 'fail', counts: [describeChildEnd(run), ...(trouble ? [trouble] : []), ...(hint ? [hint] : [])].join('; ') } };
  }
  const state = await c.inspect();
  const tally = c.standIns.tally();
  const expected = state.snapshot.size * destinations.length;
  const parts = [`rows ${state.snapshot.size}`, ...(destinations.length ? [remoteTallyText(tally, expected), `requests ${c.standIns.requests()}`] : [])];
  const ok = state.snapshot.size > 0 && tally.duplicates.length === 0 && tally.records === expected;
  if (state.snapshot.size === 0) parts.push('nothing to prove: the run wrote no rows');
  const outcome: ProveCheckOutcome = { result: ok ? 'pass' : 'fail', counts: parts.join(', ') };
  if (!ok) return { outcome };
  return { outcome, reference: { snapshot: state.snapshot, records: tally.records, posts: c.standIns.posts(), stagedRecords: stagedRecords(run.summary) ?? state.snapshot.size } };
}

/**
 * The same run again: a no-op. For an incremental source, a run that reads what changed since
 * the clean run (its run key is the newest) and changes nothing.
 */
async function secondRun(c: ProveCase, reference: ProveReference): Promise<ProveCheckOutcome> {
  const before = c.standIns.requests();
  const run = await runIdemChild(c.runArgs, c.env());
  const sent = c.standIns.requests() - before;
  const rows = compareTargetSnapshots(reference.snapshot, (await c.inspect()).snapshot);
  const { source } = c.pipeline;
  const incremental = sourceKindOf(source).incremental?.(source) !== undefined && run.summary?.outcome === 'completed';
  const upsert = (run.summary?.counts as { upsert?: { inserted?: number; updated?: number } } | undefined)?.upsert;
  const nothingNew = run.summary?.outcome === 'noop' || (incremental && upsert?.inserted === 0 && upsert.updated === 0);
  const ok = run.code === EXIT_CODES.ok && nothingNew && sent === 0 && rows.equal;
  const ending = incremental ? `completed since the mark: inserted ${upsert?.inserted}, updated ${upsert?.updated}` : String(run.summary?.outcome);
  return { result: ok ? 'pass' : 'fail', counts: [run.code === EXIT_CODES.ok ? ending : describeChildEnd(run), rows.text, ...requestsText(c, sent)].join(', ') };
}

async function forceRerun(c: ProveCase, reference: ProveReference): Promise<ProveCheckOutcome> {
  const before = c.standIns.requests();
  const run = await runIdemChild([...c.runArgs, '--force'], c.env());
  const sent = c.standIns.requests() - before;
  const upsert = (run.summary?.counts as { upsert?: { inserted?: number; updated?: number } } | undefined)?.upsert;
  const rows = compareTargetSnapshots(reference.snapshot, (await c.inspect()).snapshot);
  const ok = run.code === EXIT_CODES.ok && upsert?.inserted === 0 && upsert.updated === 0 && sent === 0 && rows.equal;
  return { result: ok ? 'pass' : 'fail', counts: run.code === EXIT_CODES.ok ? [`inserted ${upsert?.inserted}`, `updated ${upsert?.updated}`, ...requestsText(c, sent), rows.text].join(', ') : describeChildEnd(run) };
}

/** `requests N`, for a pipeline that posts anywhere (the stand-ins count what reached them). */
function requestsText(c: ProveCase, sent: number): string[] {
  return c.pipeline.destinations.length ? [`requests ${sent}`] : [];
}
