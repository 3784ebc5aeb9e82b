import { setTimeout as delay } from 'node:timers/promises';
import type { Logger } from 'pino';
import type { ResolvedConfig } from '../config/resolved-config.ts';
import type { Database } from '../db/database.ts';
import type { PipelineDefinition } from '../pipeline/pipeline-definition.ts';
import type { ProgressFactory } from '../progress/progress.ts';
import type { JobRunAttempt } from '../runs/job-run.ts';
import { releaseUnsentClaims } from '../ledger/ledger-claims.ts';
import { finishPostedRun, type PostedRunState } from './finish-posted-run.ts';
import { addPostCounts, type PostCounts } from './post-counts.ts';
import { postStage } from './post-stage.ts';
import { RUN_WORKER_PREFIX, type PostWorker } from './post-worker.ts';

/**
 * How often a process that has posted its share checks whether the run is finished (and
 * reclaims items whose claims lapsed), in ms, at most. Shorter with a short claim TTL.
 */
export const FINISH_POLL_MS = 500;

/** What {@link sharePostStage} needs besides the context and the pipeline. */
export interface SharePostStageArgs {
  readonly runKey: string;
  /** The attempt being posted (in its `post` stage). */
  readonly attempt: JobRunAttempt;
  readonly log: Logger;
  readonly worker: PostWorker;
  /** The counts to record when this process completes the run (called at that moment). */
  readonly counts: () => Record<string, unknown>;
  /** Called after every pass with this process's post counts so far, per destination. */
  readonly onPosted?: (post: readonly PostCounts[]) => void;
  /** Called once, after the first pass and before the first attempt to complete (a failpoint). */
  readonly beforeFinish?: () => Promise<void>;
}

/**
 * One process's part in a run's post stage, start to end: a first pass over every destination
 * (see `postStage`), then, until the run is finished, a check every {@link FINISH_POLL_MS}: when
 * nothing is open any more it completes the run once (see `finishPostedRun`), else it reclaims
 * and sends whatever a dead process's lapsed claims freed. So the run ends as soon as the last
 * item is posted, whichever process posts it, and never before.
 *
 * @returns this process's post counts and the run's state: `done` with `completed` or
 *   `unavailable` or `needs_review`, or (for a worker only) `started` when the attempt it helped was replaced by a
 *   new one before the end.
 * A polite stop (`ctx.stop`) is honoured after a pass (which claims nothing more once it comes,
 * and lets the requests in flight finish) and during a wait: the claims this process holds on
 * items it has not sent are released, so a rerun takes them at once.
 * @throws what `postStage` throws (the run: LockLostError), StoppedError after a polite stop,
 *   and database errors.
 */
export async function sharePostStage(
  ctx: { db: Database; config: ResolvedConfig; now: () => string; progress?: ProgressFactory; stop?: AbortSignal },
  pipeline: PipelineDefinition,
  args: SharePostStageArgs,
): Promise<{ post: PostCounts[]; state: Extract<PostedRunState, { done: true }> }> {
  const pass = { runKey: args.runKey, log: args.log, worker: args.worker };
  /** A polite stop: the process's claims on items it has not sent are released, and the stop's `StoppedError` thrown. */
  const stopIfAsked = async (): Promise<void> => {
    if (!ctx.stop?.aborted) return;
    const released = await releaseUnsentClaims(ctx.db, { worker: args.worker.name });
    args.log.info({ stage: 'post', released }, `post stage stopped: the requests in flight finished; ${released} claimed item(s) not sent were released for the rerun`);
    ctx.stop.throwIfAborted();
  };
  let post = await postStage(ctx, pipeline, { ...pass, firstPass: true });
  args.onPosted?.(post);
  await stopIfAsked();
  await args.beforeFinish?.();
  let waits = 0;
  // A worker that writes the run's end is named in its recorded attempt; the run's own process is not.
  const endedBy = args.worker.name.startsWith(RUN_WORKER_PREFIX) ? {} : { endedBy: args.worker.name };
  const pollMs = Math.max(20, Math.min(FINISH_POLL_MS, Math.floor(ctx.config.claimTtlMs / 3)));
  for (;;) {
    await args.worker.assertMayPost();
    const state = await finishPostedRun(ctx.db, { jobName: pipeline.name, runKey: args.runKey, attempt: args.attempt, counts: args.counts(), ...endedBy, nowIso: ctx.now() });
    if (state.done) return { post, state };
    // Said once at info level: a wait for a dead process's claims to lapse can take a whole TTL.
    const waiting = `${state.open} item(s) still open in other processes: waiting for them to finish, or for their claims to lapse (IDEM_CLAIM_TTL_MS ${ctx.config.claimTtlMs} ms, then the destination's takeover grace)`;
    if (waits++ === 0) args.log.info({ open: state.open }, waiting);
    else args.log.debug({ open: state.open }, waiting);
    await delay(pollMs, undefined, ctx.stop ? { signal: ctx.stop } : {}).catch(() => undefined);
    await stopIfAsked();
    const again = await postStage(ctx, pipeline, pass);
    post = post.map((counts, i) => (again[i] ? addPostCounts(counts, again[i]) : counts));
    args.onPosted?.(post);
    await stopIfAsked();
  }
}
