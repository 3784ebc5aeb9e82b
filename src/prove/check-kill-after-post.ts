import { startIdemChild } from '../child-process/start-idem-child.ts';
import { describeChildEnd } from './describe-child-end.ts';
import type { ProveCheckOutcome } from './prove-check.ts';
import type { ProveCase } from './prove-case.ts';
import type { ProveReference } from './prove-reference.ts';
import { recoverAfterCrash } from './recover-after-crash.ts';

/**
 * SIGKILL as the `n`th POST reaches a destination (before the stand-in processes it: a crash
 * mid-post, with the request possibly applied), then a rerun (see `recoverAfterCrash`).
 */
export async function checkKillAfterPost(c: ProveCase, reference: ProveReference, n: number): Promise<ProveCheckOutcome> {
  const run = startIdemChild(c.runArgs, c.env());
  let seen = 0;
  c.standIns.onPost = () => {
    if (++seen === n) run.child.kill('SIGKILL');
  };
  const killed = await run.done;
  c.standIns.onPost = undefined;
  if (killed.signal !== 'SIGKILL') return { result: 'fail', counts: `the run to be killed ${describeChildEnd(killed)} after ${seen} POSTs` };
  return recoverAfterCrash(c, reference, 2);
}
