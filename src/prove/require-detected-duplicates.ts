import { runIdemChild } from '../child-process/start-idem-child.ts';
import { countItemsNeedingOperator } from '../ledger/ledger-reports.ts';
import { EXIT_CODES } from '../outcome/outcome.ts';
import { describeChildEnd } from './describe-child-end.ts';
import type { ProveCheckOutcome } from './prove-check.ts';
import type { ProveCase } from './prove-case.ts';
import type { ProveReference } from './prove-reference.ts';
import { remoteTallyText } from './remote-tally-text.ts';

/**
 * A case that left records created twice at a destination, past the documented bound of
 * `check-before-create` (a write that lands after the settle delay: applied late, or sent by a
 * process stopped between its last claim check and its request). That cannot be prevented
 * without idempotency keys, but it must not be silent: a `--force-reconcile` run must find each
 * record held twice and send its item to review as a duplicate at the destination
 * (`lookup.references`), which `idem status` counts.
 * @param env the children's environment of the case.
 * @param said what happened before, leading the counts.
 * @returns `pass` when it found them all, else `fail` naming what it found.
 */
export async function requireDetectedDuplicates(c: ProveCase, reference: ProveReference, env: Record<string, string>, said: readonly string[]): Promise<ProveCheckOutcome> {
  const twice = c.standIns.tally().duplicates;
  const parts = [...said, remoteTallyText(c.standIns.tally(), reference.records)];
  const reconcile = await runIdemChild([...c.runArgs, '--force-reconcile'], env);
  const found = await c.withDatabase(async (db) => (await countItemsNeedingOperator(db, c.pipeline.name))[c.pipeline.name]?.duplicatesAtDestination ?? 0);
  if (reconcile.code !== EXIT_CODES.needsOperator || found < twice.length) {
    return {
      result: 'fail',
      counts: `${parts.join(', ')}: created twice silently, --force-reconcile ${describeChildEnd(reconcile)} and found ${found} duplicate(s) at the destination (declare lookup.references)`,
    };
  }
  return { result: 'pass', counts: `${parts.join(', ')}: detected, --force-reconcile exit 3, ${found} in review as duplicates at the destination` };
}
