import { randomInt } from 'node:crypto';
import { availableParallelism } from 'node:os';
import { loadConfig } from '../../config/load-config.ts';
import { redactUrl } from '../../config/redact-url.ts';
import type { Outcome } from '../../outcome/outcome.ts';
import { loadPipeline } from '../../pipeline/load-pipeline.ts';
import { formatProveReport } from '../../prove/format-prove-report.ts';
import { provePipeline } from '../../prove/prove-pipeline.ts';
import { assertOneRunKeyFlag, resolveRunKey } from '../resolve-run-key.ts';
import { commandIo } from '../../command-io/command-io.ts';

/** The flags of `idem prove`. */
export interface ProveCommandOptions {
  readonly date?: string;
  readonly file?: string;
  /** A server to create scratch databases on; default temp SQLite files. */
  readonly databaseUrl?: string;
  /** Seed of the random kill points; default a random one, printed. */
  readonly seed?: number;
  /** Checks at once. @defaultValue min(4, available CPUs) */
  readonly concurrency?: number;
  /** Run only the checks whose name contains one of these texts; default every check. */
  readonly only?: readonly string[];
}

/**
 * `idem prove PIPELINE --date D | --file PATH`: the rerun-safety checks (see `provePipeline`) on
 * throwaway databases; prints the table on stdout, progress on stderr.
 * @returns `completed` when every check passed, `failed` when any failed.
 */
export async function proveCommand(name: string, options: ProveCommandOptions): Promise<Outcome> {
  assertOneRunKeyFlag(options);
  const config = loadConfig();
  const pipeline = await loadPipeline(config.projectDir, name);
  // Resolved once here, so every run of the proof names the same day even across midnight.
  const runKey = await resolveRunKey(options, pipeline, config.now ?? new Date());
  const seed = options.seed ?? randomInt(0, 2 ** 31);
  const where = options.databaseUrl ? `scratch databases on ${redactUrl(options.databaseUrl)}` : 'temp SQLite files';
  commandIo().stderr.write(`idem prove ${name} for ${runKey.value}: ${where}, seed ${seed} (--seed ${seed} repeats the random kill points)\n`);

  const checks = await provePipeline({
    config,
    pipeline,
    runKey,
    env: commandIo().env,
    serverUrl: options.databaseUrl,
    seed,
    concurrency: options.concurrency ?? Math.min(4, availableParallelism()),
    only: options.only,
    onCheck: (check) => commandIo().stderr.write(`  ${check.result.padEnd(4)}  ${check.name} (${(check.ms / 1000).toFixed(1)} s)\n`),
  });
  commandIo().stdout.write(formatProveReport(checks));
  return checks.some((c) => c.result === 'fail') ? 'failed' : 'completed';
}
