import { runIdemChild } from '../child-process/start-idem-child.ts';
import { EXIT_CODES } from '../outcome/outcome.ts';
import type { FailpointName } from '../runner/failpoints.ts';
import { describeChildEnd } from './describe-child-end.ts';
import type { ProveCheckOutcome } from './prove-check.ts';
import type { ProveCase } from './prove-case.ts';
import type { ProveReference } from './prove-reference.ts';
import { recoverAfterCrash } from './recover-after-crash.ts';

/** SIGKILL at `point` (`IDEM_FAILPOINTS=<point>=kill`), then a rerun (see `recoverAfterCrash`). */
export async function checkKillAtFailpoint(c: ProveCase, reference: ProveReference, point: FailpointName): Promise<ProveCheckOutcome> {
  // One staging batch per third of the rows, so mid-stage fires with batches still to come.
  const batch = point === 'mid-stage' ? ['--batch-rows', String(Math.max(1, Math.floor(reference.snapshot.size / 3)))] : [];
  const killed = await runIdemChild([...c.runArgs, ...batch], c.env({ IDEM_FAILPOINTS: `${point}=kill` }));
  if (killed.signal !== 'SIGKILL') {
    // A point the run never reaches (before-post without destinations) proves nothing.
    if (killed.code === EXIT_CODES.ok) return { result: 'skip', counts: `not reached: the run ended with exit 0` };
    return { result: 'fail', counts: `the run to be killed ${describeChildEnd(killed)}` };
  }
  return recoverAfterCrash(c, reference, 2);
}
