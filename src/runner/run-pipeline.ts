import { existsSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { coerceError } from '../errors/coerce-error.ts';
import { IdemError } from '../errors/idem-error.ts';
import { UsageError } from '../errors/usage-error.ts';
import { createHeartbeat } from '../heartbeat/heartbeat.ts';
import { LockHeldError } from '../errors/lock-held-error.ts';
import { releaseClaimsOf, requeueTransientFailures } from '../post/ledger-queries.ts';
import { postWorkerName, RUN_WORKER_PREFIX, type PostWorker } from '../post/post-worker.ts';
import { resolveDestination } from '../post/resolve-destination.ts';
import { enterPostStage, finishJobRun, findJobRun, startJobRun, touchJobRunHeartbeat } from '../runs/job-runs-queries.ts';
import { appLockName } from './app-lock-name.ts';
import type { RunContext } from './run-context.ts';
import type { RunCounts } from './run-stages.ts';
import type { RunPlan } from './run-plan.ts';
import type { RunRequest } from './run-request.ts';
import type { RunOutcome, RunResult } from './run-result.ts';
import { resolveSourceLocation } from './resolve-source-location.ts';

/** Hooks into a run, for the command line. */
export interface RunHooks {
  /**
   * Called once the run has enqueued everything and its post stage begins (`job_runs.stage` is
   * `post`): `idem run --workers N` starts its `idem work` processes here.
   */
  readonly onPostStage?: (runKey: string) => void;
}

/**
 * Runs one pipeline for one run key: app lock → `job_runs` started → extract and stage →
 * duplicate-key rule → upsert → post (shared with any `idem work` processes, see
 * `sharePostStage`) → `job_runs` completed, written once by whichever process sees the last item
 * posted; the run waits, lock held, until then. A completed run key is a logged no-op
 * unless `force`; a held lock returns at once with exit code 75; any failure is recorded in
 * `job_runs` and leaves a state a plain rerun finishes. Never throws.
 */
export async function runPipeline(ctx: RunContext, request: RunRequest, hooks: RunHooks = {}): Promise<RunResult> {
  const startedAt = performance.now();
  const now = (): string => (ctx.now?.() ?? new Date()).toISOString();
  const { db, config } = ctx;
  const { pipeline, runKey } = request;
  const runId = randomUUID();
  let log = ctx.logger.child({ pipeline: pipeline.name, runKey: runKey.value, runId });
  // A dry run is not a run: it pings nothing.
  const monitor = createHeartbeat(request.dryRun ? undefined : request.heartbeatUrl, { runId, log });
  const counts: RunCounts = {};
  const finish = async (outcome: RunOutcome, exitCode: number, error?: Error, message = `run ${outcome}`, plan?: RunPlan): Promise<RunResult> => {
    const durationMs = Math.round(performance.now() - startedAt);
    const summary = { stage: 'summary', outcome, exitCode, durationMs, counts, ...(plan ? { plan } : {}) };
    if (outcome === 'lock-held') log.warn(summary, error!.message);
    else if (error) log.error({ ...summary, err: error }, `run ${outcome}: ${error.message}`);
    else if (outcome === 'needs-review') log.warn(summary, message);
    else log.info(summary, message);
    // healthchecks.io: a held lock is neither success nor failure, so it pings nothing.
    if (outcome === 'failed' || outcome === 'needs-review') await monitor.fail();
    else if (outcome !== 'lock-held') await monitor.success();
    return { outcome, exitCode, runKey: runKey.value, counts, durationMs, ...(error ? { error } : {}), ...(plan ? { plan } : {}) };
  };
  const alreadyCompleted = async (): Promise<boolean> =>
    !request.force &&
    !request.forceReconcile &&
    !request.dryRun && (await findJobRun(db, pipeline.name, runKey.value))?.status === 'completed';

  try {
    if (await alreadyCompleted()) return await finish('noop', 0, undefined, 'run key already completed: nothing to do (--force runs it again)');
    // Configuration errors (a destination without a URL) stop the run before it takes the lock.
    if (!request.dryRun) {
      for (const destination of pipeline.destinations) {
        resolveDestination(config, destination);
        if (request.forceReconcile && !destination.lookup) throw new UsageError(`--force-reconcile needs a lookup on destination "${destination.name}"`);
      }
    }
    const sourceLocation = request.sourceLocation ?? resolveSourceLocation(config, pipeline, runKey);
    if (runKey.kind === 'date' && pipeline.source.kind === 'csv' && pipeline.source.missing === 'skip' && !existsSync(sourceLocation)) {
      counts.extract = { skipped: `no source file ${sourceLocation}` };
      return await finish('skipped', 0, undefined, `no source file for ${runKey.value}; skipped (the pipeline declares missing: 'skip')`);
    }

    const lockName = appLockName(pipeline.name);
    const attempt = await db.adapter.tryAcquireAppLock(db.knex, {
      name: lockName,
      // Host and pid first: PostgreSQL keeps only 63 bytes of it.
      owner: `pid ${process.pid} on ${hostname()}, run ${runKey.value}`,
      leaseMs: config.lockLeaseMs,
    });
    if (!attempt.acquired) return await finish('lock-held', 75, new LockHeldError(lockName, attempt.holder));
    const lock = attempt.lock;
    let heartbeatTimer: NodeJS.Timeout | undefined;
    let jobRunId: number | undefined;
    try {
      // Checked again under the lock: another run may have completed the key meanwhile.
      if (await alreadyCompleted()) return await finish('noop', 0, undefined, 'run key already completed: nothing to do (--force runs it again)');
      if (request.dryRun) {
        const { planRun } = await import('./plan-run.ts');
        const strategies = Object.fromEntries(pipeline.destinations.map((d) => [d.name, config.destinations[d.name]?.strategy ?? d.strategy]));
        const plan = await planRun(ctx, request, { lock, log, counts, sourceLocation, nowIso: now(), strategies });
        return await finish('planned', 0, undefined, 'dry run: the plan below; nothing was written or sent', plan);
      }
      const jobRun = await startJobRun(db, { jobName: pipeline.name, runKey: runKey.value, triggeredBy: request.triggeredBy, now: now() });
      jobRunId = jobRun.id;
      log = log.child({ attempt: jobRun.attempts });
      await monitor.start();
      heartbeatTimer = setInterval(() => {
        touchJobRunHeartbeat(db, jobRun.id, now()).catch((error: Error) => log.warn({ err: error }, 'heartbeat not written'));
      }, config.heartbeatMs);
      heartbeatTimer.unref();

      const { runStages } = await import('./run-stages.ts');
      await runStages(ctx, request, { lock, log, counts, sourceLocation, now });
      if (pipeline.destinations.length > 0 && request.forceReconcile) {
        const { reconcileRun } = await import('../post/reconcile-run.ts');
        const reconciled = await reconcileRun({ db, config, now }, pipeline, { runKey: runKey.value, lock, log });
        counts.reconcile = Object.fromEntries(reconciled.map(({ destination, ...c }) => [destination, c]));
      }
      await ctx.failpoints?.hit('before-post');

      // The post stage: claims of earlier (dead: the lock is ours) run processes are released,
      // transient failures get another try in this attempt, then workers may join.
      const worker: PostWorker = { name: postWorkerName('run'), assertMayPost: () => lock.assertHeld() };
      await lock.assertHeld();
      const released = await releaseClaimsOf(db, { jobName: pipeline.name, runKey: runKey.value, prefix: RUN_WORKER_PREFIX, except: worker.name });
      const requeued = await requeueTransientFailures(db, { jobName: pipeline.name, runKey: runKey.value, nowIso: now() });
      if (released + requeued > 0) log.info({ stage: 'post', released, requeued }, `post: ${released} claim(s) of an earlier run released, ${requeued} transient failure(s) to retry`);
      await enterPostStage(db, jobRun.id, { counts, now: now() });
      hooks.onPostStage?.(runKey.value);
      const { sharePostStage } = await import('../post/share-post-stage.ts');
      const { state } = await sharePostStage({ db, config, now, ...(ctx.progress ? { progress: ctx.progress } : {}) }, pipeline, {
        runKey: runKey.value,
        jobRunId: jobRun.id,
        log: log.child({ worker: worker.name }),
        worker,
        counts: () => counts,
        onPosted: (post) => {
          if (post.length > 0) counts.post = Object.fromEntries(post.map(({ destination, ...c }) => [destination, c]));
        },
        beforeFinish: async () => {
          await ctx.failpoints?.hit('before-complete');
          await lock.assertHeld();
        },
      });
      if (state.status === 'needs_review') {
        counts.ledger = state.ledger;
        return await finish('needs-review', 3, undefined, `run done, but ${state.ledger.failed} item(s) failed and ${state.ledger.review} are in review: see idem review ${pipeline.name}`);
      }
      return await finish('completed', 0, undefined, state.wroteIt ? 'run completed' : 'run completed (the last item was posted by a post worker)');
    } catch (caught) {
      const error = coerceError(caught);
      if (jobRunId !== undefined) {
        await finishJobRun(db, jobRunId, { status: 'failed', counts, error: error.message, now: now() }).catch((e: Error) =>
          log.error({ err: e }, 'could not record the failure in job_runs'),
        );
      }
      throw error;
    } finally {
      clearInterval(heartbeatTimer);
      await lock.release();
    }
  } catch (caught) {
    const error = coerceError(caught);
    return await finish('failed', error instanceof IdemError && error.exitCode !== 75 ? error.exitCode : 1, error);
  }
}
