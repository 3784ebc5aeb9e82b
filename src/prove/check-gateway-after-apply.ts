import { runIdemChild } from '../child-process/start-idem-child.ts';
import { endAsAnOperatorWould } from './end-as-an-operator-would.ts';
import type { ProveCheckOutcome } from './prove-check.ts';
import type { ProveCase } from './prove-case.ts';
import type { ProveReference } from './prove-reference.ts';

/**
 * Every destination's first POST is applied, then answered 504 Gateway Timeout, as a gateway in
 * front of an API does when the API was slower than the gateway's timeout. The strategy must not
 * create the record twice: idempotency-key resends the same key and gets the first answer;
 * check-before-create looks the record up (after the settle delay) and finds it;
 * mark-before-send resends nothing the destination does not prove it did not apply, so the item
 * goes to review, which the check settles as an operator would (see `endAsAnOperatorWould`).
 */
export async function checkGatewayAfterApply(c: ProveCase, reference: ProveReference): Promise<ProveCheckOutcome> {
  c.standIns.addFaults([{ kind: 'status-after-commit', status: 504 }]);
  const run = await runIdemChild(c.runArgs, c.env());
  return endAsAnOperatorWould(c, reference, run, 1, [`504 after apply: exit ${run.code ?? run.signal}`]);
}
