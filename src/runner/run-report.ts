import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import { ConnectionLostError } from '../errors/connection-lost-error.ts';
import { DatabaseBusyError } from '../errors/database-busy-error.ts';
import { IdemError } from '../errors/idem-error.ts';
import { SourceChangedError } from '../errors/source-changed-error.ts';
import { StoppedError } from '../errors/stopped-error.ts';
import { SourceUnavailableError } from '../errors/source-unavailable-error.ts';
import { createHeartbeat, type Heartbeat } from '../heartbeat/heartbeat.ts';
import { EXIT_CODES, exitCodeOf, type Outcome } from '../outcome/outcome.ts';
import type { RunTrace, Telemetry } from '../telemetry/telemetry.ts';
import type { RunEnding } from './run-ending.ts';
import type { RunRequest } from './run-request.ts';
import type { RunResult } from './run-result.ts';
import type { RunCounts } from './run-stages.ts';

/**
 * The outcome a failed run exits with: its error's own (`usage` for a configuration error found
 * during the run), else `failed`. The failures that exit 75 are a lost database connection
 * (`ConnectionLostError`: the stage it cut committed nothing, and a plain rerun resumes), the
 * database kept locked by another session through every retry (`DatabaseBusyError`), a
 * source file that changed while it was read (`SourceChangedError`: nothing of it was upserted,
 * and a rerun once its producer has finished reads it whole), a source that stayed unreachable
 * before anything was read from it (`SourceUnavailableError`, thrown by a kind's `read`) and a
 * polite stop (`StoppedError`). Other retry-later outcomes are the held lock's, found before the
 * run did anything.
 */
export function failureOutcomeOf(error: Error): Outcome {
  if (error instanceof ConnectionLostError || error instanceof DatabaseBusyError || error instanceof SourceChangedError || error instanceof SourceUnavailableError || error instanceof StoppedError) return error.outcome;
  if (!(error instanceof IdemError) || exitCodeOf(error.outcome) === EXIT_CODES.retryLater) return 'failed';
  return error.outcome;
}

/**
 * Counts that tell `trace` of each stage's counts as the stage writes them (`counts.upsert =
 * …`): the stages report once, and know nothing of telemetry.
 */
function countsTracedBy(trace: RunTrace): RunCounts {
  return new Proxy<RunCounts>({}, {
    set(target, stage, value: Record<string, unknown>) {
      target[stage as string] = value;
      if (typeof stage === 'string') trace.countsRecorded(stage, value);
      return true;
    },
  });
}

/**
 * What a run tells the world outside the database: its log lines (with the `job_runs` attempt
 * once there is one), its heartbeat pings (healthchecks.io: `/start`, success, `/fail`), its
 * per-stage counts, and at the end its one `stage: 'summary'` line with outcome, exit code,
 * duration and counts, which monitors and tests parse (docs/operating.md, "Logs"); and, with
 * telemetry, the run's trace and metrics (docs/operating.md, "Telemetry").
 */
export class RunReport {
  /** Per-stage counts of this attempt, filled in by the stages as they go; `job_runs.counts` holds them. */
  readonly counts: RunCounts;
  readonly #startedAt = performance.now();
  readonly #runKey: string;
  readonly #monitor: Heartbeat;
  readonly #trace: RunTrace | undefined;
  #log: Logger;

  constructor(logger: Logger, request: RunRequest, telemetry?: Telemetry) {
    const runId = randomUUID();
    this.#runKey = request.runKey.value;
    this.#log = logger.child({ pipeline: request.pipeline.name, runKey: request.runKey.value, runId });
    // A dry run is not a run: it pings nothing.
    this.#monitor = createHeartbeat(request.dryRun ? undefined : request.heartbeatUrl, { runId, log: this.#log });
    this.#trace = telemetry?.startRun({ pipeline: request.pipeline.name, runKey: request.runKey.value, runId, triggeredBy: request.triggeredBy, dryRun: request.dryRun === true });
    this.counts = this.#trace ? countsTracedBy(this.#trace) : {};
  }

  /** The run will post to `destination` (its base URL): the latency of its requests is recorded under its name. */
  sendsTo(destination: { readonly name: string; readonly url: string }): void {
    this.#trace?.sendsTo(destination);
  }

  /** The run asked for its app lock, which took `waitedMs`; `acquired`: it was free. */
  lockAttempted(waitedMs: number, acquired: boolean): void {
    this.#trace?.lockAttempted(waitedMs, acquired);
  }

  /** The run's logger; its lines carry `attempt` once {@link attemptStarted} was called. */
  get log(): Logger {
    return this.#log;
  }

  /** The run's `job_runs` attempt has started: every later line names it, and the monitor hears `/start`. */
  async attemptStarted(attempt: number): Promise<void> {
    this.#log = this.#log.child({ attempt });
    this.#trace?.attemptStarted(attempt);
    await this.#monitor.start();
  }

  /**
   * Writes the summary line (warn for `lock-held`, `stopped`, `needs-review` and `unavailable`, error with `err` for a
   * failure, else info), pings the monitor (a failure, `needs-review` or `unavailable`: `/fail`; a held lock or a
   * stop: nothing, they are neither, and the retry pings; else success) and returns the run's result. Never throws.
   */
  async finish(ending: RunEnding): Promise<RunResult> {
    const { outcome, error, plan } = ending;
    const exitOutcome = outcome === 'failed' && error ? failureOutcomeOf(error) : outcome;
    const exitCode = exitCodeOf(exitOutcome);
    const durationMs = Math.round(performance.now() - this.#startedAt);
    const counts = this.counts;
    const summary = { stage: 'summary', outcome, exitCode, durationMs, counts, ...(plan ? { plan } : {}) };
    if (outcome === 'lock-held' || outcome === 'stopped') this.#log.warn(summary, error!.message);
    else if (error) this.#log.error({ ...summary, err: error }, `run ${outcome}: ${error.message}`);
    else if (outcome === 'needs-review' || outcome === 'unavailable') this.#log.warn(summary, ending.message ?? `run ${outcome}`);
    else this.#log.info(summary, ending.message ?? `run ${outcome}`);
    this.#trace?.end({ outcome, exitCode, durationMs, counts, ...(error ? { error } : {}) });
    if (outcome === 'failed' || outcome === 'needs-review' || outcome === 'unavailable') await this.#monitor.fail();
    else if (outcome !== 'lock-held' && outcome !== 'stopped') await this.#monitor.success();
    return { outcome, exitOutcome, exitCode, runKey: this.#runKey, counts, durationMs, ...(error ? { error } : {}), ...(plan ? { plan } : {}) };
  }
}
