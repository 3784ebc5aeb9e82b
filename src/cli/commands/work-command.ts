import { loadConfig } from '../../config/load-config.ts';
import type { Outcome } from '../../outcome/outcome.ts';
import { loadPipeline } from '../../pipeline/load-pipeline.ts';
import { runPostWorker } from '../../post/run-post-worker.ts';
import { parseRunKey } from '../../runs/run-key.ts';
import { assertOneRunKeyFlag, resolveRunKey } from '../resolve-run-key.ts';
import { withPoliteStop } from '../with-polite-stop.ts';
import { withSession } from '../session.ts';
import { withTelemetry } from '../with-telemetry.ts';
import type { ResolvedConfig } from '../../config/resolved-config.ts';
import type { Telemetry } from '../../telemetry/telemetry.ts';

/** The flags of `idem work`. */
export interface WorkCommandOptions {
  readonly runKey?: string;
  readonly date?: string;
  readonly file?: string;
  readonly waitMs?: number;
  readonly pollMs?: number;
}

/**
 * `idem work PIPELINE --run-key K | --date D | --file PATH`: one post worker for the run key
 * (see `runPostWorker`), with OpenTelemetry export when an `OTEL_EXPORTER_OTLP_*ENDPOINT` is set
 * (see `withTelemetry`); how it ended.
 */
export async function workCommand(name: string, options: WorkCommandOptions): Promise<Outcome> {
  assertOneRunKeyFlag(options, { flag: '--run-key', usage: '--run-key KEY', given: options.runKey !== undefined });
  const typedRunKey = options.runKey === undefined ? undefined : parseRunKey(options.runKey);
  const config = loadConfig();
  return withTelemetry(config, name, (telemetry) => workWith(config, telemetry, name, typedRunKey, options), { command: 'work' });
}

async function workWith(config: ResolvedConfig, telemetry: Telemetry | undefined, name: string, typedRunKey: string | undefined, options: WorkCommandOptions): Promise<Outcome> {
  const pipeline = await loadPipeline(config.projectDir, name);
  const runKey = typedRunKey ?? (await resolveRunKey(options, pipeline, config.now ?? new Date())).value;
  return withSession(
    (session) =>
      withPoliteStop(session.logger, config.stopGraceMs, async (stop) => {
        const result = await runPostWorker(
          { ...session, telemetry, stop: stop.signal },
          {
            pipeline,
            runKey,
            ...(options.waitMs === undefined ? {} : { waitMs: options.waitMs }),
            ...(options.pollMs === undefined ? {} : { pollMs: options.pollMs }),
          },
        );
        return result.outcome;
      }),
    { config },
  );
}
