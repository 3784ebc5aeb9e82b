import { checkPipelines } from '../../check/check-pipelines.ts';
import { PIPELINE_CHECKS } from '../../check/pipeline-checks.ts';
import { loadConfig } from '../../config/load-config.ts';
import type { Outcome } from '../../outcome/outcome.ts';
import { commandIo } from '../../command-io/command-io.ts';

/**
 * `idem check [PIPELINE…]`: every load-time check, nothing run. One line per problem on stdout,
 * `pipelines/<pipeline>.ts: <problem>`; outcome `usage` (exit 2) if there is any, else `completed`.
 * With `database: false` (`--no-database`, for a CI job without a database) the checks that read
 * the database (columns against the tables) are left out.
 */
export async function checkCommand(names: readonly string[], { database = true }: { database?: boolean } = {}): Promise<Outcome> {
  const checks = database ? PIPELINE_CHECKS : PIPELINE_CHECKS.filter((check) => !check.needsDatabase);
  const { checked, problems } = await checkPipelines(loadConfig(), names, checks);
  for (const { pipeline, problem } of problems) commandIo().stdout.write(`pipelines/${pipeline}.ts: ${problem}\n`);
  const failing = new Set(problems.map((p) => p.pipeline)).size;
  commandIo().stdout.write(
    problems.length === 0
      ? `${checked.length} pipeline${checked.length === 1 ? '' : 's'} checked: no problems\n`
      : `${problems.length} problem${problems.length === 1 ? '' : 's'} in ${failing} of ${checked.length} pipeline${checked.length === 1 ? '' : 's'}\n`,
  );
  return problems.length === 0 ? 'completed' : 'usage';
}
