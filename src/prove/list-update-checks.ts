import { runIdemChild } from '../child-process/start-idem-child.ts';
import { EXIT_CODES } from '../outcome/outcome.ts';
import type { PipelineDefinition } from '../pipeline/pipeline-definition.ts';
import { FAILPOINT_NAMES } from '../runner/failpoints.ts';
import { changedSourceCase } from './changed-source-case.ts';
import { checkGatewayAfterApply } from './check-gateway-after-apply.ts';
import { checkKillAfterPost } from './check-kill-after-post.ts';
import { checkKillAtFailpoint } from './check-kill-at-failpoint.ts';
import { checkOverlap } from './check-overlap.ts';
import { checkPausedPastLease } from './check-paused-past-lease.ts';
import { describeChildEnd } from './describe-child-end.ts';
import type { CrashCheck } from './list-crash-checks.ts';
import type { ProveCheckOutcome } from './prove-check.ts';
import type { ProveCase } from './prove-case.ts';
import type { ProveReference } from './prove-reference.ts';
import type { UpdateReference } from './update-reference.ts';
import { updateTallyText } from './update-tally-text.ts';

/** How a crash check runs on a case and the reference it must end with. */
type CheckOn = (c: ProveCase, reference: ProveReference) => Promise<ProveCheckOutcome>;

/**
 * The crash checks again, for an update: in a fresh case, a clean run, then the run of the
 * changed source (see `changedSourceCase`) killed at every failpoint, killed and stopped as its
 * update reaches a destination, twice at once, and answered 504 after the destination applied the
 * update; each then as a crash check ends (the rows of the clean update, each record once, the
 * attempts since the change), and each destination's record updated exactly once.
 */
export function listUpdateChecks(pipeline: PipelineDefinition, reference: ProveReference, update: UpdateReference): CrashCheck[] {
  const posting = pipeline.destinations.length > 0;
  const updateReference: ProveReference = { ...reference, snapshot: update.snapshot, posts: pipeline.destinations.length };
  const checks: [string, CheckOn][] = [
    ...FAILPOINT_NAMES.map((point): [string, CheckOn] => [`kill at ${point}, rerun`, (c, r) => checkKillAtFailpoint(c, r, point)]),
    ...(posting ? [['kill as the update reaches a destination, rerun', (c, r) => checkKillAfterPost(c, r, 1)] as [string, CheckOn]] : []),
    ['two runs at once', checkOverlap],
    ...(posting
      ? [
          ['paused past its lease at the update, another run', (c, r) => checkPausedPastLease(c, r, 1)] as [string, CheckOn],
          ['gateway 504 after the update applied', checkGatewayAfterApply] as [string, CheckOn],
        ]
      : []),
  ];
  return checks.map(([name, check]) => ({ name: `update: ${name}`, run: (c: ProveCase) => updateCheck(c, updateReference, update, check) }));
}

async function updateCheck(c: ProveCase, reference: ProveReference, update: UpdateReference, check: CheckOn): Promise<ProveCheckOutcome> {
  const clean = await runIdemChild(c.runArgs, c.env());
  if (clean.code !== EXIT_CODES.ok) return { result: 'fail', counts: `the clean run before the change ${describeChildEnd(clean)}` };
  const changed = await changedSourceCase(c);
  if ('unchanged' in changed) return { result: 'fail', counts: `the source could not be changed again: ${changed.unchanged}` };
  try {
    const outcome = await check(changed.view, reference);
    if (c.pipeline.destinations.length === 0) return outcome;
    const updates = updateTallyText(c.standIns.tally(), update.reference, c.pipeline.destinations.length);
    return { result: outcome.result === 'pass' && updates.ok ? 'pass' : 'fail', counts: `${outcome.counts}, ${updates.text}` };
  } finally {
    await changed.close();
  }
}
