import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { UsageError } from '../errors/usage-error.ts';
import { importProjectModule } from '../project/import-project-module.ts';
import type { PipelineDefinition } from './pipeline-definition.ts';

/** The pipeline names found in `<projectDir>/pipelines/*.ts` (one module per pipeline, named after it). */
export function listPipelineNames(projectDir: string): string[] {
  const dir = path.join(projectDir, 'pipelines');
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((file) => file.endsWith('.ts') && !file.endsWith('.d.ts'))
    .map((file) => file.slice(0, -'.ts'.length))
    .sort();
}

/**
 * @throws UsageError for a name with no module in `pipelines/`, listing the known ones.
 */
export function assertPipelineExists(projectDir: string, name: string): void {
  const known = listPipelineNames(projectDir);
  if (!known.includes(name)) {
    throw new UsageError(`unknown pipeline "${name}"; known pipelines: ${known.length ? known.join(', ') : '(none in pipelines/)'}`);
  }
}

/**
 * Loads `pipelines/<name>.ts` and returns its `pipeline` export.
 * @throws UsageError for an unknown name (listing the known ones), a module that throws while
 *   loading (its error as the `cause`), or a module without a `pipeline` export made by
 *   `definePipeline` with the same name.
 */
export async function loadPipeline(projectDir: string, name: string): Promise<PipelineDefinition> {
  assertPipelineExists(projectDir, name);
  const file = path.join(projectDir, 'pipelines', `${name}.ts`);
  let module: Record<string, unknown>;
  try {
    module = await importProjectModule(projectDir, file);
  } catch (error) {
    // definePipeline validates at import time: its TypeError is a configuration error. The
    // error itself is kept as the cause, for its stack (the CLI prints it at LOG_LEVEL=debug).
    throw new UsageError(`pipelines/${name}.ts: ${(error as Error).message}`, { cause: error });
  }
  const pipeline = module.pipeline as PipelineDefinition | undefined;
  if (!pipeline || typeof pipeline !== 'object' || pipeline.name !== name) {
    throw new UsageError(`pipelines/${name}.ts must export \`pipeline = definePipeline({ name: '${name}', … })\``);
  }
  return pipeline;
}
