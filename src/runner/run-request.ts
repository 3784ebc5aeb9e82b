import type { PipelineDefinition } from '../pipeline/pipeline-definition.ts';
import type { RunKey } from '../runs/run-key.ts';

/** One run of one pipeline for one run key. */
export interface RunRequest {
  readonly pipeline: PipelineDefinition;
  readonly runKey: RunKey;
  /** Run a `completed` run key again. @defaultValue false */
  readonly force?: boolean;
  /** Who or what started the run, for `job_runs.triggered_by`. */
  readonly triggeredBy: string;
  /**
   * The command line that started the run, with its flags (`idem run orders --date 2026-01-01
   * --force`), for `job_run_attempts.command` (redacted there). @defaultValue none recorded
   */
  readonly commandLine?: string;
  /** Rows per staging batch; the outcome never depends on it. @defaultValue 2000 */
  readonly batchRows?: number;
  /**
   * Before posting, ask each destination about every record the ledger says is posted for this
   * run key, and repair what is missing or different through the normal strategy. Implies
   * `force`. @defaultValue false
   */
  readonly forceReconcile?: boolean;
  /** Read this file instead of the run key's own source (quarantine replay). @defaultValue the run key's source */
  readonly sourceLocation?: string;
  /** Plan only: the real stages in a rolled-back transaction, nothing written or sent. @defaultValue false */
  readonly dryRun?: boolean;
  /**
   * Confirms that a full snapshot marks this many records deleted, past the delete guard (see
   * `deletionsHeld`); it must be exactly the count the guard named. @defaultValue none
   */
  readonly allowDeletes?: number;
  /** healthchecks.io-style ping URL (`--heartbeat-url`, or `IDEM_HEARTBEATS`). @defaultValue none */
  readonly heartbeatUrl?: string;
}
