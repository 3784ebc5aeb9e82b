import { loadConfig } from '../../config/load-config.ts';
import type { Outcome } from '../../outcome/outcome.ts';
import { loadPipeline } from '../../pipeline/load-pipeline.ts';
import { parseBusinessDate } from '../../runs/business-date.ts';
import { Failpoints } from '../../runner/failpoints.ts';
import { assertRepostable, repostRun, type RepostRequest } from '../../runner/repost-run.ts';
import { withPoliteStop } from '../with-polite-stop.ts';
import { withSession } from '../session.ts';
import { triggeredBy } from '../triggered-by.ts';

/** The flags of `idem repost`. */
export interface RepostCommandOptions {
  readonly destination: string;
  readonly since?: string;
  readonly reference?: string;
  readonly force?: boolean;
  readonly dryRun?: boolean;
  readonly triggeredBy?: string;
  /** The command line, for the attempt's record (see `commandLineOf`). */
  readonly commandLine?: string;
}

/** `idem repost PIPELINE --destination D [--since DATE | --reference REF] [--dry-run] [--force]`: see `repostRun`. */
export async function repostCommand(name: string, options: RepostCommandOptions): Promise<Outcome> {
  const since = options.since === undefined ? undefined : parseBusinessDate(options.since, '--since');
  const config = loadConfig();
  const pipeline = await loadPipeline(config.projectDir, name);
  const request: RepostRequest = {
    pipeline,
    destination: options.destination,
    triggeredBy: triggeredBy(options.triggeredBy, config),
    ...(options.commandLine === undefined ? {} : { commandLine: options.commandLine }),
    ...(since === undefined ? {} : { since }),
    ...(options.reference === undefined ? {} : { reference: options.reference }),
    ...(options.force ? { force: true } : {}),
    ...(options.dryRun ? { dryRun: true } : {}),
  };
  // Here too (repostRun checks it again), so a refusal is one `idem: …` line, not a log line.
  assertRepostable(config, request);
  return withSession(
    (session) => withPoliteStop(session.logger, config.stopGraceMs, async (stop) => (await repostRun({ ...session, failpoints: new Failpoints(config.failpoints), stop }, request)).exitOutcome),
    { config },
  );
}
