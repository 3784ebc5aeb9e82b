import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { UsageError } from '../errors/usage-error.ts';
import { importProjectModule } from '../project/import-project-module.ts';
import { isPipelineDefinition } from './define-pipeline.ts';
import { recordPipelineOrigin } from './pipeline-origin.ts';
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
 * Loads `pipelines/<name>.ts` and returns its `pipeline` export, its origin recorded (see
 * `pipelineOrigin`: a reading thread loads the same module).
 * @throws UsageError for an unknown name (listing the known ones), a module that throws while
 *   loading (its error as the `cause`: a `PipelineDefinitionError` for a definition
 *   `definePipeline` rejected), a module without a `pipeline` export, one whose `pipeline` was not
 *   made by `definePipeline` (a plain object is never checked), or one named after another pipeline.
 */
export async function loadPipeline(projectDir: string, name: string): Promise<PipelineDefinition> {
  assertPipelineExists(projectDir, name);
  const file = path.join(projectDir, 'pipelines', `${name}.ts`);
  let module: Record<string, unknown>;
  try {
    module = await importProjectModule(projectDir, file);
  } catch (error) {
    // importProjectModule's own refusals (a Node that cannot load TypeScript, …) name the file.
    if (error instanceof UsageError) throw error;
    // definePipeline validates at import time: its TypeError is a configuration error. The
    // error itself is kept as the cause, for its stack (the CLI prints it at LOG_LEVEL=debug).
    throw new UsageError(`pipelines/${name}.ts: ${(error as Error).message}`, { cause: error });
  }
  const pipeline = module.pipeline;
  const wanted = `export const pipeline = definePipeline({ name: '${name}', … }) (definePipeline imported from 'idem')`;
  if (pipeline === undefined) {
    const names = Object.keys(module);
    throw new UsageError(`pipelines/${name}.ts has no \`pipeline\` export (it exports ${names.length ? names.join(', ') : 'nothing'}): write ${wanted}`);
  }
  if (!isPipelineDefinition(pipeline)) {
    const what = pipeline === null || typeof pipeline !== 'object' ? `a ${pipeline === null ? 'null' : typeof pipeline}` : 'a plain object';
    throw new UsageError(`pipelines/${name}.ts exports \`pipeline\` as ${what}, not the result of definePipeline (which checks it): write ${wanted}`);
  }
  if (pipeline.name !== name) {
    throw new UsageError(`pipelines/${name}.ts defines the pipeline "${pipeline.name}": a module is named after its pipeline, so name it '${name}' or rename the file to ${pipeline.name}.ts`);
  }
  recordPipelineOrigin(pipeline, { projectDir, name });
  return pipeline;
}
