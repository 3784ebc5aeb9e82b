import type { ResolvedConfig } from '../config/resolved-config.ts';
import type { Database } from '../db/database.ts';
import { openDatabase } from '../db/open-database.ts';
import { listPipelineNames, loadPipeline } from '../pipeline/load-pipeline.ts';
import type { PipelineDefinitionError } from '../pipeline/pipeline-definition-error.ts';
import type { CheckContext } from './check-context.ts';
import type { PipelineCheck } from './pipeline-check.ts';
import { PIPELINE_CHECKS } from './pipeline-checks.ts';
import { lazySchemaDatabase } from './schema-database.ts';

/** One problem `idem check` found. */
export interface CheckProblem {
  readonly pipeline: string;
  /** One line: the field or setting, the value, and what to do (without the module's name). */
  readonly problem: string;
}

/**
 * `idem check`: loads each pipeline (all of `pipelines/` when `names` is empty), which validates
 * its definition, then runs each of `checks` on it. Runs no pipeline and writes nothing; opens
 * the database only if a check asks for it.
 * @returns every problem, in pipeline order; a pipeline that does not load has only its load
 *   problems (each problem `definePipeline` found, or the load error's message).
 * @throws UsageError for a name with no module (from `loadPipeline`), before anything is checked.
 */
export async function checkPipelines(config: ResolvedConfig, names: readonly string[], checks: readonly PipelineCheck[] = PIPELINE_CHECKS): Promise<{ checked: string[]; problems: CheckProblem[] }> {
  const { projectDir } = config;
  const known = listPipelineNames(projectDir);
  const checked = names.length > 0 ? [...names] : known;
  const unknown = checked.filter((name) => !known.includes(name));
  if (unknown.length > 0) await loadPipeline(projectDir, unknown[0]!); // throws the unknown-pipeline error
  let db: Promise<Database> | undefined;
  const database = (): Promise<Database> => (db ??= openDatabase(config));
  const schema = lazySchemaDatabase(config, database);
  const ctx: CheckContext = { config, database, schemaDatabase: schema.get };
  const problems: CheckProblem[] = [];
  try {
    for (const name of checked) {
      let pipeline;
      try {
        pipeline = await loadPipeline(projectDir, name);
      } catch (error) {
        // The module's idem may be another copy (the source through tsx, the CLI from dist/), so
        // its PipelineDefinitionError is known by its `problems`, not by instanceof.
        const { cause, message } = error as Error;
        const listed = (cause as Partial<PipelineDefinitionError> | undefined)?.problems;
        const lines = Array.isArray(listed) ? listed.map(String) : [message.replace(new RegExp(`^pipelines/${name}\\.ts:? `), '')];
        problems.push(...lines.map((problem) => ({ pipeline: name, problem })));
        continue;
      }
      for (const check of checks) {
        for (const problem of await check.check(pipeline, ctx)) problems.push({ pipeline: name, problem });
      }
    }
  } finally {
    await schema.close();
    if (db) await (await db).close();
  }
  return { checked, problems };
}
