import type { Outcome } from '../outcome/outcome.ts';

/** What a run's trace starts with: its root span's attributes. */
export interface RunStart {
  readonly pipeline: string;
  readonly runKey: string;
  /** The run's id in its log lines (`runId`). */
  readonly runId: string;
  readonly triggeredBy: string;
  readonly dryRun: boolean;
}

/** What an `idem work` session's trace starts with (see `Telemetry.startWork`). */
export interface WorkStart {
  readonly pipeline: string;
  readonly runKey: string;
  /** The worker's `claimed_by` name (`worker <uuid>, pid N on HOST`). */
  readonly worker: string;
}

/** How a run ended, as its summary line says it. */
export interface RunEnd {
  readonly outcome: Outcome;
  readonly exitCode: number;
  readonly durationMs: number;
  /** The attempt's counts per stage (`job_runs.counts`). */
  readonly counts: Readonly<Record<string, Readonly<Record<string, unknown>>>>;
  readonly error?: Error;
}

/**
 * The telemetry of one run (one run key, at most one `job_runs` attempt): one trace, whose root
 * span is the run, with a span per stage and per destination pass; and, at its end, the run's
 * metrics. Fed by `RunReport`; every method returns at once and never throws.
 */
export interface RunTrace {
  /** A destination the run posts to, so the latency of requests to its base URL is recorded under its name. */
  sendsTo(destination: { readonly name: string; readonly url: string }): void;
  /** The app lock was asked for, `waitedMs` ago; `acquired`: it was free. */
  lockAttempted(waitedMs: number, acquired: boolean): void;
  /** The run's `job_runs` attempt number: every span from now on names it. */
  attemptStarted(attempt: number): void;
  /**
   * A stage wrote its counts (`extract`, `stage`, `upsert`, `reconcile`: the stage ended now;
   * `post`: this process's post counts per destination so far, after each pass).
   */
  countsRecorded(stage: string, counts: Readonly<Record<string, unknown>>): void;
  /** The run ended: its root span ends and its metrics are recorded. */
  end(run: RunEnd): void;
}

/**
 * A command's OpenTelemetry export (src/telemetry/start-telemetry.ts), started only when the
 * `OTEL_*` variables ask for it (docs/operating.md, "Telemetry").
 */
export interface Telemetry {
  /** Starts the trace of one run. */
  startRun(run: RunStart): RunTrace;
  /**
   * Starts the trace of one `idem work` session (`work <pipeline>`): a `post` span per attempt it
   * joins, with a span per destination pass under it, like a run's post stage; at its end the
   * posts it settled (`idem.posts`). The request latency is recorded as a run's. It counts no run
   * (`idem.runs`): the run it helps counts itself. `lockAttempted` is never called (a worker takes
   * no lock); `attemptStarted` says which attempt it joins, again when a new one replaces it.
   */
  startWork(work: WorkStart): RunTrace;
  /**
   * Records a command that ended with an error outside any run (its database unreachable, its
   * pipeline not loaded): a failed root span (`run <pipeline>`, or `work <pipeline>` for `idem work`)
   * and, for a run, the `idem.runs` point with its outcome and exit code.
   */
  commandFailed(command: { readonly pipeline: string; readonly outcome: Outcome; readonly exitCode: number; readonly error: Error; readonly command?: 'run' | 'work' }): void;
  /**
   * Exports what is left and stops, within `TELEMETRY_FLUSH_MS` whatever the collector does
   * (down, slow, refusing); what is not exported by then is lost. Never throws.
   */
  shutdown(): Promise<void>;
}
