import type { ExitCode, Outcome } from '../outcome/outcome.ts';
import type { RunPlan } from './run-plan.ts';

/** How one `idem run` ended (its summary line's `outcome`, see src/outcome/outcome.ts). */
export type RunOutcome = Extract<Outcome, 'completed' | 'noop' | 'skipped' | 'planned' | 'failed' | 'needs-review' | 'lock-held' | 'unavailable' | 'stopped'>;

export interface RunResult {
  readonly outcome: RunOutcome;
  /**
   * The outcome the command ends with, which sets `exitCode`: `outcome`, except that a run
   * stopped by a usage or configuration error found during the run (a destination without a URL,
   * `--force-reconcile` without a lookup) ends `usage`, while its summary line says `failed`.
   */
  readonly exitOutcome: Outcome;
  readonly exitCode: ExitCode;
  readonly runKey: string;
  /** Per-stage counts of this attempt (empty for `noop` and `lock-held`). */
  readonly counts: Record<string, Record<string, unknown>>;
  readonly durationMs: number;
  readonly error?: Error;
  /** A dry run's plan. */
  readonly plan?: RunPlan;
}
