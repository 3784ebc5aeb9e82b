import { setTimeout as delay } from 'node:timers/promises';
import type { Logger } from 'pino';
import type { ResolvedConfig } from '../config/resolved-config.ts';
import type { Database } from '../db/database.ts';
import { coerceError } from '../errors/coerce-error.ts';
import { StoppedError } from '../errors/stopped-error.ts';
import { EXIT_CODES, exitCodeOf, type ExitCode, type Outcome } from '../outcome/outcome.ts';
import type { PipelineDefinition } from '../pipeline/pipeline-definition.ts';
import { findJobRun } from '../runs/job-runs-queries.ts';
import type { Telemetry } from '../telemetry/telemetry.ts';
import type { PostCounts } from './post-counts.ts';
import { postWorkerName, type PostWorker } from './post-worker.ts';
import { resolveDestination } from './resolve-destination.ts';
import { sharePostStage } from './share-post-stage.ts';

/** How long `idem work` waits for a run to reach its post stage, in ms. @defaultValue 600000 (10 min) */
export const DEFAULT_WORK_WAIT_MS = 600_000;
/** How often `idem work` looks at the run while it waits for its post stage, in ms. @defaultValue 1000 */
export const DEFAULT_WORK_POLL_MS = 1000;

/**
 * How one `idem work` ended (its exit code: src/outcome/outcome.ts): `completed` (the run is
 * completed, by this process or another, or was already), `needs-review` (the run is done but
 * items are failed or in review), `unavailable` (the only failed items failed transiently: a rerun
 * later retries them), `idle` (the run key did not reach its post stage within the
 * wait: nothing to do), `stopped` (a stop signal stopped this worker, or the run it helped: a
 * rerun of the run finishes it), `failed` (an error in this worker, or the run it helped failed:
 * a rerun of the run finishes it).
 */
export interface PostWorkerResult {
  readonly outcome: Extract<Outcome, 'completed' | 'needs-review' | 'unavailable' | 'idle' | 'stopped' | 'failed'>;
  readonly exitCode: ExitCode;
  /** This worker's `claimed_by` name. */
  readonly worker: string;
  /** This worker's share of the post stage, per destination. */
  readonly post: Record<string, Omit<PostCounts, 'destination'>>;
  readonly durationMs: number;
  readonly error?: Error;
}

/** What {@link runPostWorker} works on. */
export interface PostWorkerRequest {
  readonly pipeline: PipelineDefinition;
  readonly runKey: string;
  /** How long to wait for the run key to reach its post stage, in ms. @defaultValue {@link DEFAULT_WORK_WAIT_MS} */
  readonly waitMs?: number;
  /** How often to look while waiting, in ms. @defaultValue {@link DEFAULT_WORK_POLL_MS} */
  readonly pollMs?: number;
}

/**
 * `idem work`: takes part in the post stage of one run another process (`idem run`) is running,
 * on this or another host (docs/scaling.md). Waits until the run key's `job_runs` row is
 * `started` in its `post` stage, then claims and posts batches of its ledger items alongside the
 * run and any other workers (see `sharePostStage`), and completes the run if it sees the last
 * item posted. Never takes the pipeline's app lock: claims keep two processes off one item, and a
 * claim that ran out (a pause, failed renewals) sends nothing more (docs/scaling.md, "A process's
 * right to send"). With `ctx.telemetry`, the session is one trace (see `Telemetry.startWork`),
 * ended with the summary line. A polite stop (`ctx.stop`) ends it `stopped` (see `sharePostStage`).
 * Never throws.
 */
export async function runPostWorker(
  ctx: { db: Database; config: ResolvedConfig; logger: Logger; now?: () => Date; telemetry?: Telemetry | undefined; stop?: AbortSignal },
  request: PostWorkerRequest,
): Promise<PostWorkerResult> {
  const started = performance.now();
  const now = (): string => (ctx.now?.() ?? new Date()).toISOString();
  const { db, config } = ctx;
  const { pipeline, runKey } = request;
  const worker: PostWorker = { name: postWorkerName('worker'), assertMayPost: async () => undefined, assertMaySend: async () => undefined, assertMaySendNow: () => undefined };
  const log = ctx.logger.child({ pipeline: pipeline.name, runKey, worker: worker.name });
  const trace = ctx.telemetry?.startWork({ pipeline: pipeline.name, runKey, worker: worker.name });
  let post: Record<string, Omit<PostCounts, 'destination'>> = {};
  const finish = (outcome: PostWorkerResult['outcome'], message: string, error?: Error): PostWorkerResult => {
    const exitCode = exitCodeOf(outcome);
    const durationMs = Math.round(performance.now() - started);
    const summary = { stage: 'summary', outcome, exitCode, durationMs, counts: { post } };
    if (error) log.error({ ...summary, err: error }, message);
    else if (exitCode === EXIT_CODES.ok) log.info(summary, message);
    else log.warn(summary, message);
    trace?.end({ outcome, exitCode, durationMs, counts: { post }, ...(error ? { error } : {}) });
    return { outcome, exitCode, worker: worker.name, post, durationMs, ...(error ? { error } : {}) };
  };

  try {
    const deadline = Date.now() + (request.waitMs ?? DEFAULT_WORK_WAIT_MS);
    let helped = false;
    for (;;) {
      const jobRun = await findJobRun(db, pipeline.name, runKey);
      if (jobRun?.status === 'completed') return finish('completed', helped ? 'run completed' : 'run key already completed: nothing to do');
      if (jobRun?.status === 'unavailable') {
        return finish('unavailable', 'run not finished: items failed transiently, the destination stayed unavailable through every retry; a rerun of the run later retries them');
      }
      if (jobRun?.status === 'needs_review') return finish('needs-review', `run done, but items failed or are in review: see idem review ${pipeline.name}`);
      if (jobRun?.status === 'failed' && helped) return finish('failed', 'the run failed in its own process: a rerun of it finishes the post stage');
      if (jobRun?.status === 'stopped' && helped) return finish('stopped', 'the run was stopped in its own process: a rerun of it finishes the post stage');
      ctx.stop?.throwIfAborted();
      if (jobRun?.status === 'started' && jobRun.stage === 'post') {
        // The latency of requests to each destination is recorded under its name.
        if (!helped) for (const definition of pipeline.destinations) trace?.sendsTo(resolveDestination(config, definition));
        helped = true;
        trace?.attemptStarted(jobRun.attempts);
        log.info({ stage: 'post', attempt: jobRun.attempts }, `joining the post stage of ${pipeline.name} ${runKey} (attempt ${jobRun.attempts})`);
        const { state } = await sharePostStage({ db, config, now, ...(ctx.stop ? { stop: ctx.stop } : {}) }, pipeline, {
          runKey,
          attempt: { id: jobRun.id, attempt: jobRun.attempts },
          log,
          worker,
          counts: () => jobRun.counts ?? {},
          onPosted: (counts) => {
            post = Object.fromEntries(counts.map(({ destination, ...c }) => [destination, c]));
            trace?.countsRecorded('post', post);
          },
        });
        // Done (by anyone): the loop reads the outcome; `started` means a new attempt replaced it.
        if (state.status !== 'started') continue;
      }
      if (Date.now() >= deadline) {
        return finish('idle', `the run key did not reach its post stage within ${request.waitMs ?? DEFAULT_WORK_WAIT_MS} ms (status: ${jobRun?.status ?? 'no run'}): nothing to do`);
      }
      await delay(request.pollMs ?? DEFAULT_WORK_POLL_MS, undefined, ctx.stop ? { signal: ctx.stop } : {}).catch(() => undefined);
    }
  } catch (caught) {
    const error = coerceError(caught);
    if (error instanceof StoppedError) return finish('stopped', error.message);
    return finish('failed', `worker failed: ${error.message}`, error);
  }
}
