import { compareTargetSnapshots } from './compare-target-snapshots.ts';
import type { ProveCheckOutcome } from './prove-check.ts';
import type { ProveCase } from './prove-case.ts';
import type { ProveReference } from './prove-reference.ts';
import { remoteTallyText } from './remote-tally-text.ts';

/**
 * Checks what a case ended with: the clean run's rows, each of its records once per destination,
 * `job_runs` completed after `attempts` attempts, no staging rows and the app lock free.
 * @param extra what happened before, leading the counts (e.g. `exit 0 + 75`).
 */
export async function verifyCaseEnd(c: ProveCase, reference: ProveReference, attempts: number, extra: readonly string[]): Promise<ProveCheckOutcome> {
  const state = await c.inspect();
  const rows = compareTargetSnapshots(reference.snapshot, state.snapshot);
  const tally = c.standIns.tally();
  const run = state.jobRun;
  const checks: [boolean, string][] = [
    [rows.equal, rows.text],
    ...(c.pipeline.destinations.length ? [[tally.duplicates.length === 0 && tally.records === reference.records, remoteTallyText(tally, reference.records)] as [boolean, string]] : []),
    [run?.status === 'completed' && run.attempts === attempts, run?.status === 'completed' ? `attempts ${run.attempts}${run.attempts === attempts ? '' : ` ≠ ${attempts}`}` : `job_runs ${run?.status ?? 'missing'}`],
    [state.stagingRows === 0, `staging ${state.stagingRows}`],
    [state.lockFree, state.lockFree ? 'lock free' : 'lock still held'],
  ];
  return { result: checks.every(([ok]) => ok) ? 'pass' : 'fail', counts: [...extra, ...checks.map(([, text]) => text)].join(', ') };
}
