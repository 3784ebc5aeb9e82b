import { runIdemChild, startIdemChild, type IdemChildResult } from '../child-process/start-idem-child.ts';
import { EXIT_CODES } from '../outcome/outcome.ts';
import { describeChildEnd } from './describe-child-end.ts';
import { endAsAnOperatorWould } from './end-as-an-operator-would.ts';
import type { ProveCheckOutcome } from './prove-check.ts';
import type { ProveCase } from './prove-case.ts';
import type { ProveReference } from './prove-reference.ts';

/**
 * How long the check waits, while the run is stopped, for its app lock to be free, in ms: past the
 * children's 1 s lease (SQLite). A server keeps a stopped client's session, and its lock.
 */
const LOCK_WAIT_MS = 5_000;

/**
 * A run stopped (SIGSTOP: a frozen VM, a stop-the-world pause) as its POST number `stopAt`
 * reaches a destination, a second run started while it is stopped, and the first resumed
 * (SIGCONT) once the second has ended. Where the stopped run's lock is a lease (SQLite) it runs out
 * meanwhile: the second run takes the lock over and finishes the run key, and the first, resumed,
 * must find its lock gone before it sends anything (exit 1) and leave `job_runs` alone. Where it
 * is a session lock, the stopped run keeps it: the second exits 75 and the first finishes. Either
 * way every record reaches each destination exactly once (items in review settled as an
 * operator would, see `endAsAnOperatorWould`).
 */
export async function checkPausedPastLease(c: ProveCase, reference: ProveReference, stopAt: number): Promise<ProveCheckOutcome> {
  const first = startIdemChild(c.runArgs, c.env());
  let posts = 0;
  const stopped = new Promise<boolean>((resolve) => {
    c.standIns.onPost = () => {
      if (++posts !== stopAt) return;
      first.child.kill('SIGSTOP');
      resolve(true);
    };
    void first.done.then(() => resolve(false));
  });
  const wasStopped = await stopped;
  c.standIns.onPost = undefined;
  if (!wasStopped) return { result: 'fail', counts: `the run to be stopped ${describeChildEnd(await first.done)} after ${posts} POSTs` };
  let second: IdemChildResult;
  try {
    await c.waitForLockFree(LOCK_WAIT_MS);
    second = await runIdemChild(c.runArgs, c.env());
  } finally {
    first.child.kill('SIGCONT');
  }
  const resumed = await first.done;
  const exits = `exit ${resumed.code ?? resumed.signal} + ${second.code ?? second.signal}`;
  if (second.code === EXIT_CODES.retryLater) return endAsAnOperatorWould(c, reference, resumed, 1, [exits]);
  if (resumed.code !== EXIT_CODES.failed) return { result: 'fail', counts: `${exits}: the resumed run ${describeChildEnd(resumed)}, after another run took its lock` };
  return endAsAnOperatorWould(c, reference, second, 2, [exits]);
}
