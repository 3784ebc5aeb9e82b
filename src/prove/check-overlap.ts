import { startIdemChild } from '../child-process/start-idem-child.ts';
import { EXIT_CODES } from '../outcome/outcome.ts';
import type { ProveCheckOutcome } from './prove-check.ts';
import type { ProveCase } from './prove-case.ts';
import type { ProveReference } from './prove-reference.ts';
import { verifyCaseEnd } from './verify-case-end.ts';

/**
 * `before-stage` sleep of both runs, in ms: however unevenly two processes start, the first still
 * holds the lock when the second asks for it.
 */
const OVERLAP_SLEEP_MS = 2000;

/** Two runs at once: one exits 75 (the app lock is held), the other completes in one attempt (see `verifyCaseEnd`). */
export async function checkOverlap(c: ProveCase, reference: ProveReference): Promise<ProveCheckOutcome> {
  // Nothing is killed here, so SQLite gets its default lease: a winner slowed by a busy CPU
  // must not lose a 1 s lease to the other run.
  const env = c.env({ IDEM_FAILPOINTS: `before-stage=sleep:${OVERLAP_SLEEP_MS}`, IDEM_LOCK_LEASE_MS: '30000' });
  const runs = await Promise.all([startIdemChild(c.runArgs, env).done, startIdemChild(c.runArgs, env).done]);
  const codes = runs.map((r) => r.code).sort((a, b) => (a ?? -1) - (b ?? -1));
  const exits = `exit ${codes.join(' + ')}`;
  if (codes[0] !== EXIT_CODES.ok || codes[1] !== EXIT_CODES.retryLater) return { result: 'fail', counts: `${exits} (expected 0 + 75)` };
  return verifyCaseEnd(c, reference, 1, [exits]);
}
