import { existsSync } from 'node:fs';
import { hostname } from 'node:os';
import type { Logger } from 'pino';
import type { AppLock } from '../dialect/app-lock.ts';
import { coerceError } from '../errors/coerce-error.ts';
import { IdemError } from '../errors/idem-error.ts';
import { LockHeldError } from '../errors/lock-held-error.ts';
import { QuarantineError } from '../errors/quarantine-error.ts';
import { SourceError } from '../errors/source-error.ts';
import { countLedgerItems } from '../post/ledger-queries.ts';
import { postStage } from '../post/post-stage.ts';
import { resolveDestination } from '../post/resolve-destination.ts';
import { QuarantineWriter } from '../quarantine/quarantine-writer.ts';
import { finishJobRun, findJobRun, startJobRun, touchJobRunHeartbeat } from '../runs/job-runs-queries.ts';
import { readCsvRows } from '../source/read-csv-rows.ts';
import type { SourceRow } from '../source/source-row.ts';
import { applyDuplicateKeyRule } from '../stage/apply-duplicate-key-rule.ts';
import { stageRecords } from '../stage/stage-records.ts';
import { upsertStaged } from '../upsert/upsert-staged.ts';
import type { FailpointName } from './failpoints.ts';
import type { RunContext } from './run-context.ts';
import type { RunRequest } from './run-request.ts';
import type { RunOutcome, RunResult } from './run-result.ts';
import { resolveSourceFile } from './resolve-source-file.ts';

type Counts = Record<string, Record<string, unknown>>;

/** The app lock's name for a pipeline: one run per pipeline at a time, whatever its run key. */
export function appLockName(pipelineName: string): string {
  return `idem:${pipelineName}`;
}

/**
 * Runs one pipeline for one run key: app lock → `job_runs` started → extract and stage →
 * duplicate-key rule → upsert → `job_runs` completed. A completed run key is a logged no-op
 * unless `force`; a held lock returns at once with exit code 75; any failure is recorded in
 * `job_runs` and leaves a state a plain rerun finishes. Never throws.
 */
export async function runPipeline(ctx: RunContext, request: RunRequest): Promise<RunResult> {
  const startedAt = performance.now();
  const now = (): string => (ctx.now?.() ?? new Date()).toISOString();
  const { db, config } = ctx;
  const { pipeline, runKey } = request;
  let log = ctx.logger.child({ pipeline: pipeline.name, runKey: runKey.value });
  const counts: Counts = {};
  const finish = (outcome: RunOutcome, exitCode: number, error?: Error, message = `run ${outcome}`): RunResult => {
    const durationMs = Math.round(performance.now() - startedAt);
    const summary = { stage: 'summary', outcome, exitCode, durationMs, counts };
    if (outcome === 'lock-held') log.warn(summary, error!.message);
    else if (error) log.error({ ...summary, err: error }, `run ${outcome}: ${error.message}`);
    else if (outcome === 'needs-review') log.warn(summary, message);
    else log.info(summary, message);
    return { outcome, exitCode, runKey: runKey.value, counts, durationMs, ...(error ? { error } : {}) };
  };
  const alreadyCompleted = async (): Promise<boolean> =>
    !request.force && (await findJobRun(db, pipeline.name, runKey.value))?.status === 'completed';

  try {
    if (await alreadyCompleted()) return finish('noop', 0, undefined, 'run key already completed: nothing to do (--force runs it again)');
    // Configuration errors (a destination without a URL) stop the run before it takes the lock.
    for (const destination of pipeline.destinations) resolveDestination(config, destination);
    const sourceFile = resolveSourceFile(config, pipeline, runKey);
    if (runKey.kind === 'date' && pipeline.source.missing === 'skip' && !existsSync(sourceFile)) {
      counts.extract = { skipped: `no source file ${sourceFile}` };
      return finish('skipped', 0, undefined, `no source file for ${runKey.value}; skipped (the pipeline declares missing: 'skip')`);
    }

    const lockName = appLockName(pipeline.name);
    const attempt = await db.adapter.tryAcquireAppLock(db.knex, {
      name: lockName,
      // Host and pid first: PostgreSQL keeps only 63 bytes of it.
      owner: `pid ${process.pid} on ${hostname()}, run ${runKey.value}`,
      leaseMs: config.lockLeaseMs,
    });
    if (!attempt.acquired) return finish('lock-held', 75, new LockHeldError(lockName, attempt.holder));
    const lock = attempt.lock;
    let heartbeat: NodeJS.Timeout | undefined;
    let jobRunId: number | undefined;
    try {
      // Checked again under the lock: another run may have completed the key meanwhile.
      if (await alreadyCompleted()) return finish('noop', 0, undefined, 'run key already completed: nothing to do (--force runs it again)');
      const jobRun = await startJobRun(db, { jobName: pipeline.name, runKey: runKey.value, triggeredBy: request.triggeredBy, now: now() });
      jobRunId = jobRun.id;
      log = log.child({ attempt: jobRun.attempts });
      heartbeat = setInterval(() => {
        touchJobRunHeartbeat(db, jobRun.id, now()).catch((error: Error) => log.warn({ err: error }, 'heartbeat not written'));
      }, config.heartbeatMs);
      heartbeat.unref();

      await runStages(ctx, request, { lock, log, counts, sourceFile, now });
      if (pipeline.destinations.length > 0) {
        await ctx.failpoints?.hit('before-post');
        const posted = await postStage({ db, config, now }, pipeline, { runKey: runKey.value, lock, log });
        counts.post = Object.fromEntries(posted.map(({ destination, ...c }) => [destination, c]));
      }
      await ctx.failpoints?.hit('before-complete');

      // Completed only when every ledger item of the run key is posted.
      const items = await countLedgerItems(db, { jobName: pipeline.name, runKey: runKey.value });
      const open = { failed: items.failed ?? 0, review: items.review ?? 0 };
      await lock.assertHeld();
      if (open.failed + open.review > 0) {
        counts.ledger = open;
        await finishJobRun(db, jobRun.id, { status: 'needs_review', counts, now: now() });
        return finish('needs-review', 3, undefined, `run done, but ${open.failed} item(s) failed and ${open.review} are in review: see idem review ${pipeline.name}`);
      }
      await finishJobRun(db, jobRun.id, { status: 'completed', counts, now: now() });
      return finish('completed', 0);
    } catch (caught) {
      const error = coerceError(caught);
      if (jobRunId !== undefined) {
        await finishJobRun(db, jobRunId, { status: 'failed', counts, error: error.message, now: now() }).catch((e: Error) =>
          log.error({ err: e }, 'could not record the failure in job_runs'),
        );
      }
      throw error;
    } finally {
      clearInterval(heartbeat);
      await lock.release();
    }
  } catch (caught) {
    const error = coerceError(caught);
    return finish('failed', error instanceof IdemError && error.exitCode !== 75 ? error.exitCode : 1, error);
  }
}

async function runStages(
  ctx: RunContext,
  request: RunRequest,
  run: { lock: AppLock; log: Logger; counts: Counts; sourceFile: string; now: () => string },
): Promise<void> {
  const { db } = ctx;
  const hit = (name: FailpointName): Promise<void> => ctx.failpoints?.hit(name) ?? Promise.resolve();
  const { pipeline, runKey } = request;
  const { lock, log, counts, sourceFile } = run;
  if (!existsSync(sourceFile)) throw new SourceError(sourceFile, undefined, 'source file not found');

  let started = performance.now();
  const quarantine = new QuarantineWriter(db, pipeline.name, runKey.value, run.now());
  await hit('before-stage');
  await lock.assertHeld();
  await quarantine.clear();
  let rows = 0;
  async function* counted(source: AsyncIterable<SourceRow<unknown>>): AsyncGenerator<SourceRow<unknown>> {
    for await (const row of source) {
      rows += 1;
      yield row;
    }
  }
  const quarantineRow = quarantine.add.bind(quarantine);
  const records = pipeline.toRecords(counted(readCsvRows(sourceFile, pipeline.source, quarantineRow)));
  const loaded = await stageRecords(db, pipeline, records, { runKey: runKey.value, batchRows: request.batchRows, source: sourceFile, quarantine: quarantineRow, afterBatch: () => hit('mid-stage') });
  await quarantine.flush();
  counts.extract = { file: sourceFile, rows, quarantined: quarantine.count };
  log.info({ stage: 'extract', ...counts.extract }, `extracted ${rows} rows, ${quarantine.count} quarantined`);

  if (quarantine.count > 0 && pipeline.source.invalidRows === 'fail') {
    const first = quarantine.first!;
    throw new QuarantineError(quarantine.count, `${first.source}:${first.line ?? '?'}: ${first.reason}`);
  }
  const removed = await applyDuplicateKeyRule(db, pipeline);
  const staged = loaded - removed;
  counts.stage = { records: loaded, duplicatesRemoved: removed, staged, ms: Math.round(performance.now() - started) };
  log.info({ stage: 'stage', ...counts.stage }, `staged ${staged} records`);
  await hit('after-stage');

  started = performance.now();
  await lock.assertHeld();
  const upserted = await upsertStaged(db, pipeline, { runKey: runKey.value, staged, nowIso: run.now(), beforeCommit: () => hit('mid-upsert') });
  counts.upsert = { ...upserted, ms: Math.round(performance.now() - started) };
  log.info({ stage: 'upsert', ...counts.upsert }, `upserted: ${upserted.inserted} inserted, ${upserted.updated} updated, ${upserted.unchanged} unchanged`);
  await db.knex(pipeline.tables.staging).delete();
  await hit('after-upsert');
}
