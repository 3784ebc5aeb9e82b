import { runIdemChild } from '../child-process/start-idem-child.ts';
import { EXIT_CODES } from '../outcome/outcome.ts';
import { changedSourceCase } from './changed-source-case.ts';
import { describeChildEnd } from './describe-child-end.ts';
import type { ProveCheckOutcome } from './prove-check.ts';
import type { ProveCase } from './prove-case.ts';
import type { ProveReference } from './prove-reference.ts';
import { remoteTallyText } from './remote-tally-text.ts';
import type { UpdateReference } from './update-reference.ts';
import { updateTallyText } from './update-tally-text.ts';

type Upsert = { inserted?: number; updated?: number } | undefined;

/**
 * The update path, on the clean run's case: the source with one value changed (the kind's
 * `changedCopy`), run (`--force` on the completed date): one row updated, nothing inserted, each
 * destination's record of it updated exactly once and no record created; the same run again
 * updates and sends nothing (a run keyed by the changed file is a no-op). A kind that cannot change its source makes it a `skip` that says the
 * update path was not proved.
 * @returns the outcome, and (when it passed) the reference the update checks compare with.
 */
export async function checkCleanUpdate(c: ProveCase, reference: ProveReference): Promise<{ outcome: ProveCheckOutcome; update?: UpdateReference }> {
  const changed = await changedSourceCase(c);
  if ('unchanged' in changed) return { outcome: { result: 'skip', counts: `the update path was not proved: ${changed.unchanged}` } };
  try {
    const { view } = changed;
    const posting = c.pipeline.destinations.length > 0;
    const before = c.standIns.requests();
    const run = await runIdemChild(view.runArgs, view.env());
    if (run.code !== EXIT_CODES.ok) return { outcome: { result: 'fail', counts: `${changed.change}: the run ${describeChildEnd(run)}` } };
    const sent = c.standIns.requests() - before;
    const state = await view.inspect();
    const changedKeys = [...state.snapshot.keys()].filter((key) => state.snapshot.get(key) !== reference.snapshot.get(key));
    const lost = [...reference.snapshot.keys()].filter((key) => !state.snapshot.has(key));
    const upsert = (run.summary?.counts as { upsert?: Upsert } | undefined)?.upsert;
    const tally = c.standIns.tally();
    const [changedKey] = changedKeys;
    const changedReference = changedKey === undefined ? '' : changedKey.slice(changedKey.indexOf(' ') + 1);
    const updates = updateTallyText(tally, changedReference, c.pipeline.destinations.length);
    const checks: [boolean, string][] = [
      [upsert?.inserted === 0 && upsert.updated === 1, `inserted ${upsert?.inserted}, updated ${upsert?.updated}`],
      [changedKeys.length === 1 && lost.length === 0, `rows changed ${changedKeys.length}${changedKeys.length ? ` (${changedKeys.slice(0, 3).join(', ')})` : ''}${lost.length ? `, ${lost.length} missing` : ''}`],
      ...(posting
        ? [
            [tally.duplicates.length === 0 && tally.records === reference.records, remoteTallyText(tally, reference.records)] as [boolean, string],
            [updates.ok, updates.text] as [boolean, string],
            [true, `requests ${sent}`] as [boolean, string],
          ]
        : []),
    ];
    const again = await runIdemChild(view.runArgs, view.env());
    const againUpsert = (again.summary?.counts as { upsert?: Upsert } | undefined)?.upsert;
    const againSent = c.standIns.requests() - before - sent;
    // A run keyed by the changed file's identity completed: the same again is a no-op.
    const noop = again.summary?.outcome === 'noop';
    checks.push([
      again.code === EXIT_CODES.ok && (noop || (againUpsert?.updated === 0 && againUpsert.inserted === 0)) && againSent === 0,
      again.code === EXIT_CODES.ok ? `again: ${noop ? 'noop' : `updated ${againUpsert?.updated}`}${posting ? `, requests ${againSent}` : ''}` : `again: ${describeChildEnd(again)}`,
    ]);
    const ok = checks.every(([passed]) => passed);
    const outcome: ProveCheckOutcome = { result: ok ? 'pass' : 'fail', counts: [changed.change, ...checks.map(([, text]) => text)].join(', ') };
    return ok ? { outcome, update: { snapshot: state.snapshot, reference: changedReference } } : { outcome };
  } finally {
    await changed.close();
  }
}
