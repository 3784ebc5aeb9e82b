import type { AppLock } from '../dialect/app-lock.ts';
import { releaseClaimsOf, requeueTransientFailures } from '../ledger/ledger-claims.ts';
import { postWorkerName, RUN_WORKER_PREFIX, type PostWorker } from '../post/post-worker.ts';
import { sharePostStage } from '../post/share-post-stage.ts';
import { enterPostStage } from '../runs/job-runs-queries.ts';
import { isoClock, type RunContext } from './run-context.ts';
import type { RunEnding } from './run-ending.ts';
import type { RunHooks } from './run-hooks.ts';
import type { RunReport } from './run-report.ts';
import type { RunRequest } from './run-request.ts';

/**
 * A run's post stage, under its app lock: claims of earlier run processes (dead: the lock is
 * ours) are released and transient failures get another try in this attempt; then `job_runs`
 * enters its `post` stage, from which `idem work` processes may join (`hooks.onPostStage`), and
 * this process posts its share and waits, lock held, until the run is finished by whichever
 * process posts the last item (see `sharePostStage`).
 * @returns `completed`, or `needs-review` when items are failed or in review.
 * @throws LockLostError when the lock is gone before a durable step, and database errors.
 */
export async function runPostPhase(
  ctx: RunContext,
  request: RunRequest,
  run: { lock: AppLock; report: RunReport; jobRunId: number; hooks: RunHooks },
): Promise<RunEnding> {
  const { db, config } = ctx;
  const { pipeline, runKey } = request;
  const { lock, report } = run;
  const now = isoClock(ctx);
  const worker: PostWorker = { name: postWorkerName('run'), assertMayPost: () => lock.assertHeld() };
  await lock.assertHeld();
  const released = await releaseClaimsOf(db, { jobName: pipeline.name, runKey: runKey.value, prefix: RUN_WORKER_PREFIX, except: worker.name });
  const requeued = await requeueTransientFailures(db, { jobName: pipeline.name, runKey: runKey.value, nowIso: now() });
  if (released + requeued > 0) report.log.info({ stage: 'post', released, requeued }, `post: ${released} claim(s) of an earlier run released, ${requeued} transient failure(s) to retry`);
  await enterPostStage(db, run.jobRunId, { counts: report.counts, now: now() });
  run.hooks.onPostStage?.(runKey.value);
  const { state } = await sharePostStage({ db, config, now, ...(ctx.progress ? { progress: ctx.progress } : {}) }, pipeline, {
    runKey: runKey.value,
    jobRunId: run.jobRunId,
    log: report.log.child({ worker: worker.name }),
    worker,
    counts: () => report.counts,
    onPosted: (post) => {
      if (post.length > 0) report.counts.post = Object.fromEntries(post.map(({ destination, ...c }) => [destination, c]));
    },
    beforeFinish: async () => {
      await ctx.failpoints?.hit('before-complete');
      await lock.assertHeld();
    },
  });
  if (state.status === 'needs_review') {
    report.counts.ledger = state.ledger;
    return { outcome: 'needs-review', message: `run done, but ${state.ledger.failed} item(s) failed and ${state.ledger.review} are in review: see idem review ${pipeline.name}` };
  }
  return { outcome: 'completed', message: state.wroteIt ? 'run completed' : 'run completed (the last item was posted by a post worker)' };
}
