import type { PipelineDefinition } from '../pipeline/pipeline-definition.ts';
import type { CheckContext } from './check-context.ts';

/**
 * One load-time check of `idem check`: looks at a pipeline that loaded (its definition already
 * passed `definePipeline`'s own checks) and its deployment, runs nothing, writes nothing.
 * @returns its problems, one line each, naming the field or setting, the value and what to do;
 *   none when the pipeline passes it.
 */
export interface PipelineCheck {
  /** What it checks, in a few words (for the docs and debug logs). */
  readonly name: string;
  /** True when it reads the database (`idem check --no-database` leaves it out). Default false. */
  readonly needsDatabase?: boolean;
  readonly check: (pipeline: PipelineDefinition, ctx: CheckContext) => Promise<readonly string[]> | readonly string[];
}
