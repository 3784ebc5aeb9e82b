import { loadConfig } from '../../config/load-config.ts';
import { UsageError } from '../../errors/usage-error.ts';
import type { Outcome } from '../../outcome/outcome.ts';
import { loadPipeline } from '../../pipeline/load-pipeline.ts';
import { listQuarantine } from '../../quarantine/quarantine-queries.ts';
import { replayQuarantine } from '../../runner/replay-quarantine.ts';
import { formatTable } from '../../text/format-table.ts';
import { withSession } from '../session.ts';
import { triggeredBy } from '../triggered-by.ts';

/** `idem quarantine PIPELINE [--run-key K] [--replay] [--json]`: lists, or replays after a fix. */
export async function quarantineCommand(name: string, options: { runKey?: string; replay?: boolean; json?: boolean; triggeredBy?: string }): Promise<Outcome> {
  const config = loadConfig();
  const pipeline = await loadPipeline(config.projectDir, name);
  if (options.replay && options.runKey === undefined) throw new UsageError('--replay needs --run-key <run key>');
  return withSession(
    async (session) => {
      if (options.replay) {
        return (await replayQuarantine(session, { pipeline, runKey: options.runKey!, triggeredBy: triggeredBy(options.triggeredBy) })).exitOutcome;
      }
      const entries = await listQuarantine(session.db, { jobName: name, ...(options.runKey ? { runKey: options.runKey } : {}) });
      if (options.json) process.stdout.write(`${JSON.stringify(entries, null, 2)}\n`);
      else if (entries.length === 0) process.stdout.write(`${name}: nothing quarantined\n`);
      else process.stdout.write(formatTable(['run key', 'line', 'reason', 'source', 'raw'], entries.map((e) => [e.runKey, String(e.line ?? '-'), e.reason, e.source, (e.raw ?? '').slice(0, 60)])));
      return 'completed';
    },
    { config },
  );
}
