import { loadConfig } from '../../config/load-config.ts';
import { UsageError } from '../../errors/usage-error.ts';
import { assertNoSchemaDrift } from '../../migration/assert-no-schema-drift.ts';
import type { Outcome } from '../../outcome/outcome.ts';
import { loadPipeline } from '../../pipeline/load-pipeline.ts';
import { Failpoints } from '../../runner/failpoints.ts';
import type { RunRequest } from '../../runner/run-request.ts';
import { runWithPostWorkers } from '../../runner/run-with-post-workers.ts';
import { assertOneRunKeyFlag, resolveRunKey } from '../resolve-run-key.ts';
import { withPoliteStop } from '../with-polite-stop.ts';
import { withSession } from '../session.ts';
import { triggeredBy } from '../triggered-by.ts';
import { withTelemetry } from '../with-telemetry.ts';
import type { ResolvedConfig } from '../../config/resolved-config.ts';
import type { Telemetry } from '../../telemetry/telemetry.ts';
import { commandIo } from '../../command-io/command-io.ts';

/** The flags of `idem run`. */
export interface RunCommandOptions {
  readonly date?: string;
  readonly file?: string;
  readonly catchUp?: boolean;
  readonly force?: boolean;
  readonly triggeredBy?: string;
  /** The command line, for the attempt's record (see `commandLineOf`). */
  readonly commandLine?: string;
  readonly heartbeatUrl?: string;
  readonly batchRows?: number;
  readonly dryRun?: boolean;
  readonly forceReconcile?: boolean;
  /** `--allow-deletes N`: the count the delete guard named (see `RunRequest.allowDeletes`). */
  readonly allowDeletes?: number;
  /** Processes sharing the post stage: this run and `workers - 1` `idem work` children. @defaultValue 1 */
  readonly workers?: number;
}

/** `idem run PIPELINE --date D | --file PATH | --catch-up`: how the run (or the dates caught up) ended. */
export async function runCommand(name: string, options: RunCommandOptions): Promise<Outcome> {
  const config = loadConfig();
  return withTelemetry(config, name, (telemetry) => runWith(config, telemetry, name, options));
}

async function runWith(config: ResolvedConfig, telemetry: Telemetry | undefined, name: string, options: RunCommandOptions): Promise<Outcome> {
  assertOneRunKeyFlag(options, { flag: '--catch-up', usage: '--catch-up', given: options.catchUp === true });
  if (options.dryRun && options.catchUp) throw new UsageError('--dry-run plans one run key: use it with --date or --file');
  if (options.allowDeletes !== undefined && options.catchUp) throw new UsageError('--allow-deletes confirms the count of one run key: use it with --date or --file');
  const workers = options.workers ?? 1;
  if (workers > 1 && (options.catchUp || options.dryRun)) throw new UsageError('--workers shares the post stage of one run: use it with --date or --file, without --dry-run');
  const failpoints = new Failpoints(config.failpoints);
  const pipeline = await loadPipeline(config.projectDir, name);
  const now = config.now ?? new Date();
  const runKey = options.catchUp ? undefined : await resolveRunKey(options, pipeline, now);
  const heartbeatUrl = options.heartbeatUrl ?? config.heartbeats[pipeline.name];
  const request: Omit<RunRequest, 'runKey'> = {
    pipeline,
    force: options.force ?? false,
    dryRun: options.dryRun ?? false,
    forceReconcile: options.forceReconcile ?? false,
    triggeredBy: triggeredBy(options.triggeredBy, config),
    ...(options.commandLine === undefined ? {} : { commandLine: options.commandLine }),
    ...(options.batchRows ? { batchRows: options.batchRows } : {}),
    ...(options.allowDeletes === undefined ? {} : { allowDeletes: options.allowDeletes }),
    ...(heartbeatUrl ? { heartbeatUrl } : {}),
  };

  return withSession(
    (session) => withPoliteStop(session.logger, config.stopGraceMs, async (stop) => {
      // Here too (runPipeline checks it again for every caller), so the column-by-column
      // table reaches the terminal as text, not only inside a JSON log line.
      await assertNoSchemaDrift(session.db, pipeline);
      // Progress bars on stderr, only for a person at a terminal.
      const progress = commandIo().stderr.isTTY ? (await import('../../progress/terminal-progress.ts')).terminalProgress : undefined;
      const ctx = { ...session, failpoints, stop, ...(progress ? { progress } : {}), ...(telemetry ? { telemetry } : {}) };
      // --catch-up's and --dry-run's own modules are loaded when asked for: a no-op loads neither.
      if (runKey === undefined) {
        const { runCatchUp } = await import('../../runner/run-catch-up.ts');
        return (await runCatchUp(ctx, request, now)).outcome;
      }
      if (runKey.kind === 'date' && runKey.value !== options.date) {
        session.logger.info({ pipeline: pipeline.name, date: options.date, resolved: runKey.value, timeZone: pipeline.timeZone }, `--date ${options.date} is ${runKey.value} in ${pipeline.timeZone}`);
      }
      const result = await runWithPostWorkers(ctx, { ...request, runKey }, workers);
      if (result.plan) {
        const { formatPlan } = await import('../../runner/format-plan.ts');
        commandIo().stdout.write(formatPlan(result.plan));
      }
      return result.exitOutcome;
    }),
    { config },
  );
}
