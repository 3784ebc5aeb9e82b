import { runIdemChild } from '../child-process/start-idem-child.ts';
import { EXIT_CODES } from '../outcome/outcome.ts';
import type { FailpointName } from '../runner/failpoints.ts';
import { describeChildEnd } from './describe-child-end.ts';
import type { ProveCheckOutcome } from './prove-check.ts';
import type { ProveCase } from './prove-case.ts';
import type { ProveReference } from './prove-reference.ts';
import { recoverAfterCrash } from './recover-after-crash.ts';
import { stagedRecords } from './staged-records.ts';

/**
 * SIGKILL at `point` (`IDEM_FAILPOINTS=<point>=kill`), then a rerun (see `recoverAfterCrash`).
 * Every failpoint lies on the path of a run that stages records, so a run that ends without
 * reaching its point fails the check: the crash there was never tried, and a proof that passed
 * anyway would claim more than it showed. (It happens when the run differs from the clean one,
 * e.g. a source that changed since.)
 */
export async function checkKillAtFailpoint(c: ProveCase, reference: ProveReference, point: FailpointName): Promise<ProveCheckOutcome> {
  // One staging batch per third of the records, so mid-stage fires with batches still to come.
  const batch = point === 'mid-stage' ? ['--batch-rows', String(Math.max(1, Math.floor(reference.stagedRecords / 3)))] : [];
  const killed = await runIdemChild([...c.runArgs, ...batch], c.env({ IDEM_FAILPOINTS: `${point}=kill` }));
  if (killed.signal === 'SIGKILL') return recoverAfterCrash(c, reference, 2);
  if (killed.code !== EXIT_CODES.ok) return { result: 'fail', counts: `the run to be killed ${describeChildEnd(killed)}` };
  const staged = stagedRecords(killed.summary);
  const differs = staged === undefined || staged === reference.stagedRecords ? '' : ` (it staged ${staged} records, the clean run ${reference.stagedRecords})`;
  return { result: 'fail', counts: `${point} not reached: the run ended with exit 0 before it, so a crash there was never tried${differs}` };
}
