import type { PipelineDefinition } from '../pipeline/pipeline-definition.ts';
import { FAILPOINT_NAMES } from '../runner/failpoints.ts';
import { checkErrorAnswer } from './check-error-answer.ts';
import { checkGatewayAfterApply } from './check-gateway-after-apply.ts';
import { checkIdempotencyKeySupport } from './check-idempotency-key-support.ts';
import { checkKilledLockSession } from './check-killed-lock-session.ts';
import { checkLateApply } from './check-late-apply.ts';
import { checkPausedWorker } from './check-paused-worker.ts';
import { checkKillAfterPost } from './check-kill-after-post.ts';
import { checkKillAtFailpoint } from './check-kill-at-failpoint.ts';
import { checkOverlap } from './check-overlap.ts';
import { checkPausedPastLease } from './check-paused-past-lease.ts';
import type { ProveCheckOutcome } from './prove-check.ts';
import type { ProveCase } from './prove-case.ts';
import type { ProveReference } from './prove-reference.ts';
import { seededRandom } from './seeded-random.ts';

/** How many random points in the post stage are killed. */
const POST_KILLS = 3;

/** One check that runs in a case of its own, or a line saying why it does not apply. */
export type CrashCheck =
  | { readonly name: string; readonly run: (c: ProveCase) => Promise<ProveCheckOutcome> }
  | { readonly name: string; readonly skip: string };

/**
 * The checks that compare with the clean run, each in a fresh case, in table order: a kill at
 * every failpoint, kills after `POST_KILLS` random POSTs (drawn with `seed` from the clean run's
 * POSTs), two runs at once, a run paused past its lease (stopped at a third of its POSTs) while
 * another runs, a gateway's 504 after a POST was applied, a 409 and a 500 answer, a write applied
 * after the settle delay, the lock's session killed mid-post, an `idem work` paused past its
 * claims, and whether the APIs honour idempotency keys where the strategy needs
 * them. Those that need a destination are skipped without one.
 */
export function listCrashChecks(pipeline: PipelineDefinition, reference: ProveReference, seed: number): CrashCheck[] {
  const killPoints = pickDistinct(reference.posts, POST_KILLS, seededRandom(seed));
  const stopAt = Math.max(1, Math.ceil(reference.posts / 3));
  const posting = pipeline.destinations.length > 0;
  return [
    ...FAILPOINT_NAMES.map((point) => ({ name: `kill at ${point}, rerun`, run: (c: ProveCase) => checkKillAtFailpoint(c, reference, point) })),
    ...(posting
      ? killPoints.map((n) => ({ name: `kill after POST ${n} of ${reference.posts}, rerun`, run: (c: ProveCase) => checkKillAfterPost(c, reference, n) }))
      : [{ name: 'kill during post, rerun', skip: 'no destinations' }]),
    { name: 'two runs at once', run: (c: ProveCase) => checkOverlap(c, reference) },
    posting
      ? { name: `paused past its lease at POST ${stopAt} of ${reference.posts}, another run`, run: (c: ProveCase) => checkPausedPastLease(c, reference, stopAt) }
      : { name: 'paused past its lease during post', skip: 'no destinations' },
    posting ? { name: 'gateway 504 after apply', run: (c: ProveCase) => checkGatewayAfterApply(c, reference) } : { name: 'gateway 504 after apply', skip: 'no destinations' },
    ...(posting
      ? [
          { name: '409 on the first write', run: (c: ProveCase) => checkErrorAnswer(c, reference, 409) },
          { name: '500 on the first write', run: (c: ProveCase) => checkErrorAnswer(c, reference, 500) },
          { name: 'applied after the settle delay', run: (c: ProveCase) => checkLateApply(c, reference) },
          { name: `lock session killed at POST ${stopAt} of ${reference.posts}, rerun`, run: (c: ProveCase) => checkKilledLockSession(c, reference, stopAt) },
          { name: 'idem work paused past its claims, the run takes over', run: (c: ProveCase) => checkPausedWorker(c, reference) },
          { name: 'idempotency keys honoured by the API', run: (c: ProveCase) => checkIdempotencyKeySupport(c) },
        ]
      : ['409 on the first write', '500 on the first write', 'applied after the settle delay', 'lock session killed during post, rerun', 'idem work paused past its claims', 'idempotency keys honoured by the API'].map((name) => ({ name, skip: 'no destinations' }))),
  ];
}

/** Up to `count` distinct whole numbers from 1 to `max`, ascending, drawn with `random`. */
function pickDistinct(max: number, count: number, random: () => number): number[] {
  if (max <= count) return Array.from({ length: max }, (_, i) => i + 1);
  const picked = new Set<number>();
  while (picked.size < count) picked.add(1 + Math.floor(random() * max));
  return [...picked].sort((a, b) => a - b);
}
