import { runIdemChildWhenUnlocked } from '../child-process/run-idem-child-when-unlocked.ts';
import { endAsAnOperatorWould } from './end-as-an-operator-would.ts';
import type { ProveCheckOutcome } from './prove-check.ts';
import type { ProveCase } from './prove-case.ts';
import type { ProveReference } from './prove-reference.ts';

/**
 * Reruns after a crash, as the next scheduled run would, and checks what that ends with, items in
 * review settled as an operator would (see `endAsAnOperatorWould`).
 * @param attempts the attempts `job_runs` must count after the rerun (the crashed one included).
 * @param extra what happened before, leading the counts.
 */
export async function recoverAfterCrash(c: ProveCase, reference: ProveReference, attempts: number, extra: readonly string[] = []): Promise<ProveCheckOutcome> {
  await c.waitForLockFree();
  const rerun = await runIdemChildWhenUnlocked(c.runArgs, c.env());
  return endAsAnOperatorWould(c, reference, rerun, attempts, extra);
}
