import { loadConfig } from '../../config/load-config.ts';
import { UsageError } from '../../errors/usage-error.ts';
import type { Outcome } from '../../outcome/outcome.ts';
import { loadPipeline } from '../../pipeline/load-pipeline.ts';
import { countQuarantine, DEFAULT_QUARANTINE_LIMIT, listQuarantine } from '../../quarantine/quarantine-queries.ts';
import { replayQuarantine } from '../../runner/replay-quarantine.ts';
import { formatTable } from '../../text/format-table.ts';
import { withPoliteStop } from '../with-polite-stop.ts';
import { withSession } from '../session.ts';
import { triggeredBy } from '../triggered-by.ts';
import { commandIo } from '../../command-io/command-io.ts';

/**
 * `idem quarantine PIPELINE [--run-key K] [--replay] [--json] [--limit N]`: lists, or replays
 * after a fix. A listing shows the first `--limit` rows (default 1000); when there are more, it
 * says so and how to see the rest (after the table; with `--json`, on stderr, so stdout stays JSON).
 */
export async function quarantineCommand(name: string, options: { runKey?: string; replay?: boolean; json?: boolean; triggeredBy?: string; limit?: number; commandLine?: string }): Promise<Outcome> {
  const config = loadConfig();
  const pipeline = await loadPipeline(config.projectDir, name);
  if (options.replay && options.runKey === undefined) throw new UsageError('--replay needs --run-key <run key>');
  return withSession(
    async (session) => {
      if (options.replay) {
        const replay = { pipeline, runKey: options.runKey!, triggeredBy: triggeredBy(options.triggeredBy, config), ...(options.commandLine === undefined ? {} : { commandLine: options.commandLine }) };
        return withPoliteStop(session.logger, config.stopGraceMs, async (stop) => (await replayQuarantine({ ...session, stop }, replay)).exitOutcome);
      }
      const filter = { jobName: name, ...(options.runKey ? { runKey: options.runKey } : {}) };
      const limit = options.limit ?? DEFAULT_QUARANTINE_LIMIT;
      const entries = await listQuarantine(session.db, { ...filter, limit });
      const total = entries.length < limit ? entries.length : await countQuarantine(session.db, filter);
      const capped = total > entries.length ? `showing the first ${entries.length} of ${total} quarantined rows; --limit ${total} shows them all${options.runKey ? '' : ', --run-key K one run key'}\n` : '';
      if (options.json) {
        commandIo().stdout.write(`${JSON.stringify(entries, null, 2)}\n`);
        if (capped) commandIo().stderr.write(`idem: ${capped}`);
      } else if (entries.length === 0) commandIo().stdout.write(`${name}: nothing quarantined\n`);
      else {
        commandIo().stdout.write(formatTable(['run key', 'line', 'reason', 'source', 'raw'], entries.map((e) => [e.runKey, String(e.line ?? '-'), e.reason, e.source, (e.raw ?? '').slice(0, 60)])));
        if (capped) commandIo().stdout.write(capped);
      }
      return 'completed';
    },
    { config, existing: true },
  );
}
