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
   * Records a command that ended with an error outside any run (its database unreachable, its
   * pipeline not loaded): a failed root span and the `idem.runs` point with its outcome and exit code.
   */
  commandFailed(command: { readonly pipeline: string; readonly outcome: Outcome; readonly exitCode: number; readonly error: Error }): void;
  /**
   * Exports what is left and stops, within `TELEMETRY_FLUSH_MS` whatever the collector does
   * (down, slow, refusing); what is not exported by then is lost. Never throws.
   */
  shutdown(): Promise<void>;
}
