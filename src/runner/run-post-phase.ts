import type { AppLock } from '../dialect/app-lock.ts';
import { expireClaimsOf, requeueTransientFailures } from '../ledger/ledger-claims.ts';
import { postWorkerName, RUN_WORKER_PREFIX, type PostWorker } from '../post/post-worker.ts';
import { ProvedSendBatches } from '../post/proved-send-batches.ts';
import { resolveDestination } from '../post/resolve-destination.ts';
import { sharePostStage } from '../post/share-post-stage.ts';
import type { JobRunAttempt } from '../runs/job-run.ts';
import { enterPostStage } from '../runs/job-runs-queries.ts';
import { isoClock, type RunContext } from './run-context.ts';
import type { RunEnding } from './run-ending.ts';
import type { RunHooks } from './run-hooks.ts';
import type { RunReport } from './run-report.ts';
import type { RunRequest } from './run-request.ts';

/**
 * Ends the claims earlier run processes of this run key hold, where nothing can be sent under
 * them any more: their process lost the app lock this one holds, and either the destination's
 * strategy makes a takeover safe at once (see `ResolvedDestination.takeoverGraceMs`), or the lock
 * is a lease, which the earlier process stopped using (`AppLock.assertValid`) before this one could
 * take it. The items are then claimable once the takeover grace has passed. Elsewhere (a session
 * lock under check-before-create: an earlier process cut off from its database may not know yet)
 * its claims lapse by themselves.
 * @returns the number of claims ended.
 */
async function expireEarlierRunClaims(ctx: RunContext, request: RunRequest, lock: AppLock, worker: PostWorker): Promise<number> {
  let expired = 0;
  for (const definition of request.pipeline.destinations) {
    const destination = resolveDestination(ctx.config, definition);
    if (destination.takeoverGraceMs > 0 && !lock.expiresUnlessRenewed) continue;
    expired += await expireClaimsOf(ctx.db, { jobName: request.pipeline.name, runKey: request.runKey.value, destination: destination.name, prefix: RUN_WORKER_PREFIX, except: worker.name });
  }
  return expired;
}

/**
 * A run's post stage, under its app lock: claims of earlier run processes end where they can
 * (see {@link expireEarlierRunClaims}) and transient failures get another try in this attempt;
 * then `job_runs` enters its `post` stage, from which `idem work` processes may join
 * (`hooks.onPostStage`), and this process posts its share and waits, lock held, until the run is
 * finished by whichever process posts the last item (see `sharePostStage`). Before every request
 * it proves its lock still valid (`AppLock.assertValid`), and before every batch of at most
 * `SEND_BATCH_MAX` requests held by a round trip (`AppLock.assertHeld`, see `ProvedSendBatches`).
 * @returns the outcome `job_runs` holds (see `postedRunStatus`): `completed`; `unavailable` when
 *   the only open items failed transiently (the destination stayed unavailable through every
 *   retry: a rerun later retries them); `needs-review` when items are in review or failed terminally.
 * @throws LockLostError when the lock is gone before a durable step or a request, StoppedError
 *   when a polite stop ended the post stage (see `sharePostStage`), and database errors.
 */
export async function runPostPhase(
  ctx: RunContext,
  request: RunRequest,
  run: { lock: AppLock; report: RunReport; attempt: JobRunAttempt; hooks: RunHooks },
): Promise<RunEnding> {
  const { db, config } = ctx;
  const { pipeline, runKey } = request;
  const { lock, report } = run;
  const now = isoClock(ctx);
  // Requests leave in batches, each proved by a round trip (docs/scaling.md, "A process's right to send").
  const batches = new ProvedSendBatches(() => lock.assertHeld(), () => lock.assertValid());
  const worker: PostWorker = { name: postWorkerName('run'), assertMayPost: () => lock.assertHeld(), assertMaySend: () => batches.admit(), assertMaySendNow: () => lock.assertValidNow() };
  // The lock proved as the post stage begins; the proof grants the first batch.
  await batches.prove();
  const expired = await expireEarlierRunClaims(ctx, request, lock, worker);
  const requeued = await requeueTransientFailures(db, { jobName: pipeline.name, runKey: runKey.value, nowIso: now() });
  if (expired + requeued > 0) report.log.info({ stage: 'post', expired, requeued }, `post: ${expired} claim(s) of an earlier run ended, ${requeued} transient failure(s) to retry`);
  ctx.stop?.signal.throwIfAborted();
  await enterPostStage(db, run.attempt, { counts: report.counts, now: now() });
  run.hooks.onPostStage?.(runKey.value);
  const { state } = await sharePostStage({ db, config, now, ...(ctx.progress ? { progress: ctx.progress } : {}), ...(ctx.stop ? { stop: ctx.stop.signal } : {}) }, pipeline, {
    runKey: runKey.value,
    attempt: run.attempt,
    log: report.log.child({ worker: worker.name }),
    worker,
    counts: () => report.counts,
    onPosted: (post) => {
      if (post.length > 0) report.counts.post = Object.fromEntries(post.map(({ destination, ...c }) => [destination, c]));
    },
    beforeFinish: async () => {
      await ctx.failpoints?.hit('before-complete', report.log);
      ctx.stop?.signal.throwIfAborted();
      await lock.assertHeld();
    },
  });
  // The outcome is what job_runs says now (whichever process wrote it), so the two never differ.
  if (state.status === 'unavailable') {
    report.counts.ledger = state.ledger;
    return { outcome: 'unavailable', message: `run not finished: ${state.ledger.transient} item(s) failed transiently, the destination stayed unavailable through every retry; a rerun later retries them` };
  }
  if (state.status === 'needs_review') {
    report.counts.ledger = state.ledger;
    return { outcome: 'needs-review', message: `run done, but ${state.ledger.failed} item(s) failed and ${state.ledger.review} are in review: see idem review ${pipeline.name}` };
  }
  return { outcome: 'completed', message: state.wroteIt ? 'run completed' : 'run completed (the last item was posted by an idem work process)' };
}
