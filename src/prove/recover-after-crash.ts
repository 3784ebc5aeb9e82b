import { runIdemChildWhenUnlocked } from '../child-process/run-idem-child-when-unlocked.ts';
import { runIdemChild } from '../child-process/start-idem-child.ts';
import { EXIT_CODES } from '../outcome/outcome.ts';
import { describeChildEnd } from './describe-child-end.ts';
import type { ProveCheckOutcome } from './prove-check.ts';
import type { ProveCase } from './prove-case.ts';
import type { ProveReference } from './prove-reference.ts';
import { settleReviewItems } from './settle-review-items.ts';
import { verifyCaseEnd } from './verify-case-end.ts';

/**
 * Reruns after a crash, as the next scheduled run would, and checks what that ends with (see
 * `verifyCaseEnd`). Under mark-before-send, a rerun that stops for review (exit 3) has its items
 * settled as an operator would (see `settleReviewItems`), and one more run sends what was retried.
 * @param attempts the attempts `job_runs` must count after the rerun (the crashed one included).
 */
export async function recoverAfterCrash(c: ProveCase, reference: ProveReference, attempts: number): Promise<ProveCheckOutcome> {
  await c.waitForLockFree();
  const rerun = await runIdemChildWhenUnlocked(c.runArgs, c.env());
  const parts: string[] = [];
  let expectedAttempts = attempts;
  if (rerun.code === EXIT_CODES.needsOperator) {
    // mark-before-send: what was in flight is in review; settle it as an operator would.
    const settled = await c.withDatabase((db) => settleReviewItems(db, c.pipeline, c.standIns));
    parts.push(`review: ${settled.markedPosted} marked posted, ${settled.retried} retried`);
    if (settled.failed > 0) return { result: 'fail', counts: `${settled.failed} item(s) failed terminally after the rerun` };
    if (settled.retried > 0) {
      const last = await runIdemChild(c.runArgs, c.env());
      if (last.code !== EXIT_CODES.ok) return { result: 'fail', counts: `${parts.join(', ')}; the run after that ${describeChildEnd(last)}` };
      expectedAttempts += 1;
    }
  } else if (rerun.code !== EXIT_CODES.ok) {
    return { result: 'fail', counts: `the rerun ${describeChildEnd(rerun)}` };
  }
  return verifyCaseEnd(c, reference, expectedAttempts, parts);
}
