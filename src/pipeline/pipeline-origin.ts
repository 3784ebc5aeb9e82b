import type { PipelineDefinition } from './pipeline-definition.ts';

/** Where a pipeline definition was loaded from: its project and its name (`pipelines/<name>.ts`). */
export interface PipelineOrigin {
  readonly projectDir: string;
  readonly name: string;
}

/** The origin of each definition `loadPipeline` returned; a definition made in memory (a test, the test kit) has none. */
const ORIGINS = new WeakMap<PipelineDefinition, PipelineOrigin>();

/** Records that `pipeline` is the `pipeline` export of `pipelines/<name>.ts` in `projectDir` (by `loadPipeline`). */
export function recordPipelineOrigin(pipeline: PipelineDefinition, origin: PipelineOrigin): void {
  ORIGINS.set(pipeline, Object.freeze({ projectDir: origin.projectDir, name: origin.name }));
}

/**
 * Where `pipeline` was loaded from, so that another thread can load the same definition itself
 * (a row schema is code, and code does not cross a thread boundary); undefined for a definition
 * made in memory, which only the thread that made it can use.
 */
export function pipelineOrigin(pipeline: PipelineDefinition): PipelineOrigin | undefined {
  return ORIGINS.get(pipeline);
}
