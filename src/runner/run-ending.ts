import type { RunOutcome } from './run-result.ts';
import type { RunPlan } from './run-plan.ts';

/** How a run ended, before its summary line is written (see `RunReport.finish`). */
export interface RunEnding {
  readonly outcome: RunOutcome;
  /** The summary line's message. @defaultValue `run <outcome>`; with an error, its message */
  readonly message?: string;
  /** What stopped the run (`failed`), or the held lock (`lock-held`). */
  readonly error?: Error;
  /** A dry run's plan (`planned`). */
  readonly plan?: RunPlan;
}
