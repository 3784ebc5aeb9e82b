import { createHash } from 'node:crypto';
import { hostname } from 'node:os';
import { DateTime } from 'luxon';
import type { Database } from '../db/database.ts';
import type { AppLock } from '../dialect/app-lock.ts';
import { coerceError } from '../errors/coerce-error.ts';
import { LockHeldError } from '../errors/lock-held-error.ts';
import { StoppedError } from '../errors/stopped-error.ts';
import { UsageError } from '../errors/usage-error.ts';
import { enqueueReposts, selectRepostCandidates, type RepostCandidate, type RepostSelection } from '../ledger/enqueue-reposts.ts';
import { assertNoSchemaDrift } from '../migration/assert-no-schema-drift.ts';
import type { PipelineDefinition } from '../pipeline/pipeline-definition.ts';
import { resolveDestination } from '../post/resolve-destination.ts';
import type { ResolvedDestination } from '../post/resolved-destination.ts';
import type { ResolvedConfig } from '../config/resolved-config.ts';
import { appLockName } from '../runs/app-lock-name.ts';
import type { JobRunAttempt } from '../runs/job-run.ts';
import { findJobRun, startJobRun } from '../runs/job-runs-queries.ts';
import { recordFailedAttempt } from './record-failed-attempt.ts';
import { recordNoop } from './record-noop.ts';
import { isoClock, type RunContext } from './run-context.ts';
import type { RunEnding } from './run-ending.ts';
import { keepJobRunAlive } from './run-locked-attempt.ts';
import { RunReport } from './run-report.ts';
import type { RunRequest } from './run-request.ts';
import type { RunResult } from './run-result.ts';
import { commandIo } from '../command-io/command-io.ts';

/** What `idem repost` is asked to send again. */
export interface RepostRequest {
  readonly pipeline: PipelineDefinition;
  /** The destination's name. */
  readonly destination: string;
  /** Only records whose current version was posted on or after this business date (`YYYY-MM-DD`, from its start in the pipeline's time zone). */
  readonly since?: string;
  /** Only this source reference. */
  readonly reference?: string;
  /** Repost a repost that completed already (a second fix of `request()`). @defaultValue false */
  readonly force?: boolean;
  /** List what would be sent, send nothing. @defaultValue false */
  readonly dryRun?: boolean;
  readonly triggeredBy: string;
  /** The command line, for `job_run_attempts.command` (see `RunRequest.commandLine`). @defaultValue none recorded */
  readonly commandLine?: string;
}

/** The most references a dry run lists (the count is always whole). */
const LISTED_REFERENCES = 20;

/**
 * A repost's run key, `repost:<destination>:all|since:<date>|reference:<ref>` (what `job_runs`
 * and the ledger items hold): the same request is the same run key, so a rerun of a completed
 * repost is a no-op and a stopped one resumes. A reference too long for a run key is hashed.
 */
export function repostRunKey(request: Pick<RepostRequest, 'destination' | 'since' | 'reference'>): string {
  const selector = request.reference !== undefined ? `reference:${request.reference}` : request.since !== undefined ? `since:${request.since}` : 'all';
  const key = `repost:${request.destination}:${selector}`;
  return key.length <= 200 ? key : `repost:${request.destination}:reference-sha256:${createHash('sha256').update(request.reference!).digest('hex')}`;
}

/**
 * What a repost needs before it touches anything: a destination of the pipeline by that name,
 * with its URL. Under check-before-create a repost's look-up asks for the record of the repost's
 * own version (see `postedVersion`): not found, the item sends its update to the record its last
 * version left (never a create); found (the repost's update applied before a crash), it is posted
 * with nothing sent.
 * @returns the destination, resolved.
 * @throws UsageError for an unknown destination, both `since` and `reference`, or a destination
 *   without a URL.
 */
export function assertRepostable(config: ResolvedConfig, request: RepostRequest): ResolvedDestination {
  const { pipeline } = request;
  const definition = pipeline.destinations.find((d) => d.name === request.destination);
  if (!definition) {
    throw new UsageError(`pipeline ${pipeline.name} has no destination "${request.destination}" (it has: ${pipeline.destinations.map((d) => d.name).join(', ') || 'none'})`);
  }
  if (request.since !== undefined && request.reference !== undefined) throw new UsageError('use either --since or --reference, not both');
  return resolveDestination(config, definition);
}

/**
 * The `idem repost` flags that name a repost run key again (`--destination D --since X`), for
 * `idem review`'s hints; undefined for any other run key (and for a hashed reference).
 */
export function repostFlags(runKey: string): string | undefined {
  const match = /^repost:([^:]+):(all|since:(.+)|reference:(.+))$/s.exec(runKey);
  if (!match) return undefined;
  return `--destination ${match[1]}${match[3] !== undefined ? ` --since ${match[3]}` : match[4] !== undefined ? ` --reference ${match[4]}` : ''}`;
}

function selectionOf(request: RepostRequest): RepostSelection {
  return {
    jobName: request.pipeline.name,
    destination: request.destination,
    ...(request.since === undefined ? {} : { postedSince: DateTime.fromISO(request.since, { zone: request.pipeline.timeZone }).toUTC().toISO()! }),
    ...(request.reference === undefined ? {} : { reference: request.reference }),
  };
}

/**
 * Refuses a `--reference` that names no record posted to the destination (a typo, or a record whose
 * newest version is pending, failed or in review), which would otherwise complete a repost that
 * sent nothing.
 * @throws UsageError naming the reference
 */
function assertReferenceFound(request: RepostRequest, found: number): void {
  if (request.reference === undefined || found > 0) return;
  throw new UsageError(
    `--reference ${JSON.stringify(request.reference)} names no record of ${request.pipeline.name} posted to ${request.destination}: check the reference (idem status lists records in review or failed, which idem review resolves, not idem repost)`,
  );
}

function listed(candidates: readonly RepostCandidate[]): string {
  const shown = candidates.slice(0, LISTED_REFERENCES).map((c) => c.sourceReference).join(', ');
  return candidates.length > LISTED_REFERENCES ? `${shown}, … (${candidates.length - LISTED_REFERENCES} more)` : shown;
}

/**
 * The locked part of a repost: the completed check again; in one transaction, the `job_runs`
 * attempt and, when it starts a repost (no earlier attempt, or `force` after a completed one),
 * the repost's ledger items (see `enqueueReposts`), so a kill leaves either both or neither; an
 * attempt after an unfinished one enqueues nothing and resumes its items. Then the run's own post
 * stage (see `runPostPhase`) sends them, exactly as a run's.
 */
async function repostLocked(ctx: RunContext, request: RepostRequest, run: { runRequest: RunRequest; report: RunReport; lock: AppLock }): Promise<RunEnding> {
  const { db } = ctx;
  const now = isoClock(ctx);
  const runKey = run.runRequest.runKey.value;
  let attempt: JobRunAttempt | undefined;
  let stopHeartbeat = (): void => undefined;
  try {
    const earlier = await findJobRun(db, request.pipeline.name, runKey);
    if (earlier?.status === 'completed' && !request.force) return { outcome: 'noop', message: 'this repost already completed: nothing sent (--force reposts again)' };
    const starts = earlier === undefined || earlier.status === 'completed';
    await run.lock.assertHeld();
    const { jobRun, enqueued } = await db.knex.transaction(async (trx) => {
      const inTransaction: Database = { ...db, knex: trx };
      const started = await startJobRun(inTransaction, { jobName: request.pipeline.name, runKey, triggeredBy: request.triggeredBy, command: request.commandLine, now: now() });
      const count = starts ? await enqueueReposts(inTransaction, selectionOf(request), { runKey, nowIso: now() }) : undefined;
      // Thrown in the transaction: a refused repost leaves no job_runs attempt behind.
      if (count !== undefined) assertReferenceFound(request, count);
      return { jobRun: started.jobRun, enqueued: count };
    });
    attempt = { id: jobRun.id, attempt: jobRun.attempts };
    await run.report.attemptStarted(jobRun.attempts);
    stopHeartbeat = keepJobRunAlive(db, attempt, ctx.config.heartbeatMs, now, run.report.log);
    run.report.counts.repost = { destination: request.destination, ...(enqueued === undefined ? { resumed: true } : { enqueued }) };
    run.report.log.info({ stage: 'repost', ...run.report.counts.repost }, enqueued === undefined ? 'resuming the repost an earlier attempt enqueued' : `enqueued ${enqueued} posted record(s) to send again`);
    const { runPostPhase } = await import('./run-post-phase.ts');
    return await runPostPhase(ctx, run.runRequest, { lock: run.lock, report: run.report, attempt, hooks: {} });
  } catch (caught) {
    const error = coerceError(caught);
    if (attempt) await recordFailedAttempt(db, attempt, { error, counts: run.report.counts, now: now(), log: run.report.log });
    throw error;
  } finally {
    stopHeartbeat();
    await run.lock.release();
  }
}

/**
 * `idem repost`: sends posted records of one destination again, after a fix to its `request()`,
 * through the same ledger, strategy and update path as a run: each chosen record's current
 * version gets a new ledger item under the repost's run key (see {@link repostRunKey}), and the
 * post stage sends it as an update of the record its last version left at the destination.
 * Exactly once: a completed repost is a no-op unless `force`; a stopped one resumes its items
 * (mark-before-send: an item cut off mid-request goes to review, as in a run). Under the
 * pipeline's app lock (held: `lock-held`). A dry run lists what would be sent.
 * Ends with the run's summary line. Never throws.
 * Under check-before-create each item looks the record up first: the repost's version found is
 * the item posted (after a crash), else the update is sent.
 * @returns the run result; `usage` for what {@link assertRepostable} refuses.
 */
export async function repostRun(ctx: RunContext, request: RepostRequest): Promise<RunResult> {
  const { db, config } = ctx;
  const { pipeline } = request;
  const runKey = repostRunKey(request);
  // Only the reposted destination: the others need no URL here, and have nothing of this run key.
  const definition = pipeline.destinations.find((d) => d.name === request.destination);
  const runRequest: RunRequest = {
    pipeline: { ...pipeline, destinations: definition ? [definition] : [] },
    // A repost reads no source: only its run key's value is used (job_runs, the ledger, logs).
    runKey: { kind: 'date', value: runKey, businessDate: runKey },
    triggeredBy: request.triggeredBy,
    ...(request.commandLine === undefined ? {} : { commandLine: request.commandLine }),
    ...(request.dryRun ? { dryRun: true } : {}),
  };
  const report = new RunReport(ctx.logger, runRequest);
  let ending: RunEnding;
  try {
    const destination = assertRepostable(config, request);
    await assertNoSchemaDrift(db, pipeline);
    if (request.dryRun) {
      const candidates = await selectRepostCandidates(db, selectionOf(request));
      assertReferenceFound(request, candidates.length);
      report.counts.repost = { destination: destination.name, wouldSend: candidates.length };
      commandIo().stdout.write(`${candidates.length} posted record(s) of ${pipeline.name} would be sent again to ${destination.name}${candidates.length ? `: ${listed(candidates)}` : ''}\n`);
      ending = { outcome: 'planned', message: 'dry run: nothing was written or sent' };
    } else if ((await findJobRun(db, pipeline.name, runKey))?.status === 'completed' && !request.force) {
      ending = { outcome: 'noop', message: 'this repost already completed: nothing sent (--force reposts again)' };
    } else {
      const lockName = appLockName(pipeline.name);
      const acquired = await db.adapter.tryAcquireAppLock(db.knex, { name: lockName, owner: `pid ${process.pid} on ${hostname()}, run ${runKey}`, leaseMs: config.lockLeaseMs });
      ending = acquired.acquired ? await repostLocked(ctx, request, { runRequest, report, lock: acquired.lock }) : { outcome: 'lock-held', error: new LockHeldError(lockName, acquired.holder) };
    }
  } catch (caught) {
    const error = coerceError(caught);
    ending = { outcome: error instanceof StoppedError ? 'stopped' : 'failed', error };
  }
  if (ending.outcome === 'noop') await recordNoop(ctx, runRequest, report);
  return report.finish(ending);
}
