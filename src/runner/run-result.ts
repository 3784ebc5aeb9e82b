import type { RunPlan } from './run-plan.ts';

/**
 * How one `idem run` ended, and the exit code it maps to (DESIGN.md): `completed` 0, `noop` 0
 * (the run key was already completed), `skipped` 0 (no source file and the pipeline says skip),
 * `planned` 0 (a dry run), `failed` 1, `needs-review` 3 (done, but post ledger items are failed or in review), `lock-held` 75.
 */
export type RunOutcome = 'completed' | 'noop' | 'skipped' | 'planned' | 'failed' | 'needs-review' | 'lock-held';

export interface RunResult {
  readonly outcome: RunOutcome;
  readonly exitCode: number;
  readonly runKey: string;
  /** Per-stage counts of this attempt (empty for `noop` and `lock-held`). */
  readonly counts: Record<string, Record<string, unknown>>;
  readonly durationMs: number;
  readonly error?: Error;
  /** A dry run's plan. */
  readonly plan?: RunPlan;
}
