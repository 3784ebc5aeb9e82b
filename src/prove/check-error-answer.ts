import { runIdemChild } from '../child-process/start-idem-child.ts';
import { selectItemsNeedingOperator } from '../ledger/ledger-reports.ts';
import { EXIT_CODES } from '../outcome/outcome.ts';
import { retryReviewItem } from '../post/resolve-review-item.ts';
import { endAsAnOperatorWould } from './end-as-an-operator-would.ts';
import { exitDisagreesWithJobRun } from './exit-disagrees-with-job-run.ts';
import type { ProveCheckOutcome } from './prove-check.ts';
import type { ProveCase } from './prove-case.ts';
import type { ProveReference } from './prove-reference.ts';

/**
 * Every destination answers its first write with `status` and applies nothing: a `409 Conflict`
 * (Stripe's "idempotency key in use", a retry under `idempotency-key`; any other strategy reads it
 * as a refusal, failed terminally), a `500` (transient: retried under `idempotency-key` and
 * `check-before-create`, after a look-up; to review under `mark-before-send`, where it does not
 * prove nothing was done). The run's exit code and `job_runs` must tell one story (see
 * `exitDisagreesWithJobRun`), and once an operator has done what `idem review` says (items in
 * review settled from the stand-in, terminal failures retried, a rerun for what is left), every
 * record is at each destination exactly once.
 */
export async function checkErrorAnswer(c: ProveCase, reference: ProveReference, status: 409 | 500): Promise<ProveCheckOutcome> {
  c.standIns.addFaults([{ kind: 'status', status }]);
  const run = await runIdemChild(c.runArgs, c.env());
  const said = [`${status} on the first write: exit ${run.code ?? run.signal}`];
  const disagrees = exitDisagreesWithJobRun(run, (await c.jobRun())?.status);
  if (disagrees) return { result: 'fail', counts: `${said[0]}: ${disagrees}` };
  // What an operator does for a refusal once its cause is fixed: `idem review --retry`.
  const refused = await c.withDatabase(async (db) => {
    const failed = (await selectItemsNeedingOperator(db, { jobName: c.pipeline.name })).filter((item) => item.status === 'failed');
    for (const item of failed) await retryReviewItem(db, { jobName: item.jobName, reference: item.sourceReference, destination: item.destination, nowIso: new Date().toISOString() });
    return failed.length;
  });
  if (refused === 0 && run.code !== EXIT_CODES.retryLater) return endAsAnOperatorWould(c, reference, run, 1, said);
  said.push(`${refused} retried`);
  // A terminal failure's retry, or a transient one's, is sent by the next run, as the scheduler's rerun would.
  const again = await runIdemChild(c.runArgs, c.env());
  return endAsAnOperatorWould(c, reference, again, 2, said);
}
