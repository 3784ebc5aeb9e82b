import type { PipelineDefinition } from '../pipeline/pipeline-definition.ts';
import { FAILPOINT_NAMES } from '../runner/failpoints.ts';
import { checkKillAfterPost } from './check-kill-after-post.ts';
import { checkKillAtFailpoint } from './check-kill-at-failpoint.ts';
import { checkOverlap } from './check-overlap.ts';
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
 * POSTs; skipped without destinations), and two runs at once.
 */
export function listCrashChecks(pipeline: PipelineDefinition, reference: ProveReference, seed: number): CrashCheck[] {
  const killPoints = pickDistinct(reference.posts, POST_KILLS, seededRandom(seed));
  return [
    ...FAILPOINT_NAMES.map((point) => ({ name: `kill at ${point}, rerun`, run: (c: ProveCase) => checkKillAtFailpoint(c, reference, point) })),
    ...(pipeline.destinations.length === 0
      ? [{ name: 'kill during post, rerun', skip: 'no destinations' }]
      : killPoints.map((n) => ({ name: `kill after POST ${n} of ${reference.posts}, rerun`, run: (c: ProveCase) => checkKillAfterPost(c, reference, n) }))),
    { name: 'two runs at once', run: (c: ProveCase) => checkOverlap(c, reference) },
  ];
}

/** Up to `count` distinct whole numbers from 1 to `max`, ascending, drawn with `random`. */
function pickDistinct(max: number, count: number, random: () => number): number[] {
  if (max <= count) return Array.from({ length: max }, (_, i) => i + 1);
  const picked = new Set<number>();
  while (picked.size < count) picked.add(1 + Math.floor(random() * max));
  return [...picked].sort((a, b) => a - b);
}
