import type { IdemChildResult } from '../child-process/start-idem-child.ts';
import { runIdemChild } from '../child-process/start-idem-child.ts';
import { EXIT_CODES } from '../outcome/outcome.ts';
import { describeChildEnd } from './describe-child-end.ts';
import type { ProveCheckOutcome } from './prove-check.ts';
import type { ProveCase } from './prove-case.ts';
import type { ProveReference } from './prove-reference.ts';
import { settleReviewItems } from './settle-review-items.ts';
import { verifyCaseEnd } from './verify-case-end.ts';

/**
 * Ends a case whose last run ended with `run`, and checks what it ended with (see
 * `verifyCaseEnd`). A run that exited 75 (retry later: the database kept locked by a stopped
 * process, a lost connection) is run again, as the scheduler's retry would; that rerun starts an
 * attempt unless another process completed the run key meanwhile. A run that stopped
 * for review (exit 3: under mark-before-send, what may have reached the destination) has its
 * items settled as an operator would (see `settleReviewItems`), and one more run sends what was
 * retried, or completes the run key.
 * @param attempts the attempts `job_runs` must count after `run`.
 * @param extra what happened before, leading the counts (e.g. `exit 0 + 1`).
 */
export async function endAsAnOperatorWould(c: ProveCase, reference: ProveReference, run: IdemChildResult, attempts: number, extra: readonly string[] = []): Promise<ProveCheckOutcome> {
  const parts = [...extra];
  let expectedAttempts = attempts;
  let last = run;
  if (last.code === EXIT_CODES.retryLater) {
    // An `idem work` sharing the post stage may have completed the run key since (its share went
    // on once the database was free): the rerun is then a no-op, and starts no attempt.
    const completedMeanwhile = (await c.jobRun())?.status === 'completed';
    last = await runIdemChild(c.runArgs, c.env());
    if (!completedMeanwhile) expectedAttempts += 1;
    parts.push(`rerun exit ${last.code ?? last.signal}${completedMeanwhile ? ' (a no-op: completed meanwhile)' : ''}`);
  }
  if (last.code === EXIT_CODES.needsOperator) {
    const settled = await c.withDatabase((db) => settleReviewItems(db, c.pipeline, c.standIns));
    parts.push(`review: ${settled.markedPosted} marked posted, ${settled.retried} retried`);
    if (settled.failed > 0) return { result: 'fail', counts: `${settled.failed} item(s) failed terminally` };
    // Marking the last open item posted completes the run key; anything retried needs a run.
    if ((await c.jobRun())?.status !== 'completed') {
      const after = await runIdemChild(c.runArgs, c.env());
      if (after.code !== EXIT_CODES.ok) return { result: 'fail', counts: `${parts.join(', ')}; the run after that ${describeChildEnd(after)}` };
      expectedAttempts += 1;
    }
  } else if (last.code !== EXIT_CODES.ok) {
    return { result: 'fail', counts: `${[...parts, `the run ${describeChildEnd(last)}`].join(', ')}` };
  }
  return verifyCaseEnd(c, reference, expectedAttempts, parts);
}
