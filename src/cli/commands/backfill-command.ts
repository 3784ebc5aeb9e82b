import { loadConfig } from '../../config/load-config.ts';
import type { Outcome } from '../../outcome/outcome.ts';
import { loadPipeline } from '../../pipeline/load-pipeline.ts';
import { Failpoints } from '../../runner/failpoints.ts';
import { runDates } from '../../runner/run-dates.ts';
import { businessDatesBetween, parseBusinessDate } from '../../runs/business-date.ts';
import { withPoliteStop } from '../with-polite-stop.ts';
import { withSession } from '../session.ts';
import { triggeredBy } from '../triggered-by.ts';
import { withTelemetry } from '../with-telemetry.ts';

/** `idem backfill PIPELINE --from D --to D`: each business date in order; how the dates ended (see `runDates`). */
export async function backfillCommand(name: string, options: { from: string; to: string; triggeredBy?: string; heartbeatUrl?: string; commandLine?: string }): Promise<Outcome> {
  const dates = businessDatesBetween(parseBusinessDate(options.from, '--from'), parseBusinessDate(options.to, '--to'));
  const config = loadConfig();
  return withTelemetry(config, name, async (telemetry) => {
    const pipeline = await loadPipeline(config.projectDir, name);
    const heartbeatUrl = options.heartbeatUrl ?? config.heartbeats[pipeline.name];
    const request = { pipeline, triggeredBy: triggeredBy(options.triggeredBy, config), ...(options.commandLine === undefined ? {} : { commandLine: options.commandLine }), ...(heartbeatUrl ? { heartbeatUrl } : {}) };
    return withSession(
      (session) =>
        withPoliteStop(session.logger, config.stopGraceMs, async (stop) => {
          const ctx = { ...session, failpoints: new Failpoints(config.failpoints), stop, ...(telemetry ? { telemetry } : {}) };
          return (await runDates(ctx, request, dates)).outcome;
        }),
      { config },
    );
  });
}
