import { setTimeout as delay } from 'node:timers/promises';
import { runIdemChild } from '../child-process/start-idem-child.ts';
import { EXIT_CODES } from '../outcome/outcome.ts';
import { endAsAnOperatorWould } from './end-as-an-operator-would.ts';
import type { ProveCheckOutcome } from './prove-check.ts';
import type { ProveCase } from './prove-case.ts';
import type { ProveReference } from './prove-reference.ts';
import { requireDetectedDuplicates } from './require-detected-duplicates.ts';

/** The children's headers timeout and settle delay in this check, in ms: short, so the late apply comes soon. */
const HEADERS_TIMEOUT_MS = 500;
const SETTLE_DELAY_MS = 300;
/** How long after it came each destination applies its first write: well past the timeout and the settle delay. */
const LATE_MS = 2_000;

/**
 * Every destination applies its first write 2 s after it came: after the client gave up (a
 * 500 ms headers timeout) and after the settle delay (300 ms) it waits before it looks again.
 * Past the documented bound of `check-before-create`: its look-up finds nothing, it creates the
 * record again, and the late write makes it a duplicate. That one cannot be prevented, but it must
 * not be silent: once the late write has landed, a `--force-reconcile` run must find every
 * record held twice (see `requireDetectedDuplicates`). Under `idempotency-key` the resend meets
 * the key still in flight and the record is created once; under `mark-before-send` the item goes
 * to review, which is settled as an operator would once the write has landed.
 */
export async function checkLateApply(c: ProveCase, reference: ProveReference): Promise<ProveCheckOutcome> {
  c.standIns.addFaults([{ kind: 'late-commit', ms: LATE_MS }]);
  const destinations = JSON.parse(c.standIns.env) as Record<string, { http?: Record<string, unknown> }>;
  for (const settings of Object.values(destinations)) Object.assign(settings, { settleDelayMs: SETTLE_DELAY_MS, http: { ...settings.http, headersTimeoutMs: HEADERS_TIMEOUT_MS } });
  const env = c.env({ IDEM_DESTINATIONS: JSON.stringify(destinations) });
  let firstWriteAt: number | undefined;
  c.standIns.onPost = () => {
    firstWriteAt ??= performance.now();
  };
  let run = await runIdemChild(c.runArgs, env);
  c.standIns.onPost = undefined;
  const said = [`applied ${LATE_MS} ms late: exit ${run.code ?? run.signal}`];
  // The late write lands on the stand-in's own schedule: wait until it has.
  if (firstWriteAt !== undefined) await delay(Math.max(0, firstWriteAt + LATE_MS + 200 - performance.now()));
  let attempts = 1;
  if (run.code === EXIT_CODES.retryLater) {
    run = await runIdemChild(c.runArgs, env);
    attempts += 1;
    said.push(`rerun exit ${run.code ?? run.signal}`);
  }
  if (c.standIns.tally().duplicates.length === 0) return endAsAnOperatorWould(c, reference, run, attempts, said);
  return requireDetectedDuplicates(c, reference, env, said);
}
