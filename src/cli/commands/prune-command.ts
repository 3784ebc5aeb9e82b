import { loadConfig } from '../../config/load-config.ts';
import { UsageError } from '../../errors/usage-error.ts';
import type { Outcome } from '../../outcome/outcome.ts';
import { listPipelineNames, loadPipeline } from '../../pipeline/load-pipeline.ts';
import type { PipelineDefinition } from '../../pipeline/pipeline-definition.ts';
import { prune } from '../../retention/prune.ts';
import { withSession } from '../session.ts';
import { commandIo } from '../../command-io/command-io.ts';

const UNIT_MS = { d: 86_400_000, h: 3_600_000 } as const;

/** Parses `90d` or `36h` into ms. @throws UsageError for anything else, and for an age of 0. */
export function parseAge(value: string): number {
  const match = /^(\d+)([dh])$/.exec(value);
  if (!match) throw new UsageError(`--older-than must be a whole number of days or hours, like 90d or 36h (got "${value}")`);
  const ms = Number(match[1]) * UNIT_MS[match[2] as 'd' | 'h'];
  // 0 would prune everything finished up to this moment: the last run's history and quarantine too.
  if (ms === 0) throw new UsageError(`--older-than must be at least 1h: ${value} would delete every finished run's history, quarantine and replaced ledger rows up to now`);
  return ms;
}

/** `idem prune --older-than 90d [--dry-run]`: retention for job history, quarantine, ledger and staging leftovers. */
export async function pruneCommand(options: { olderThan: string; dryRun?: boolean }): Promise<Outcome> {
  const olderThanMs = parseAge(options.olderThan);
  const config = loadConfig();
  const pipelines: PipelineDefinition[] = [];
  for (const name of listPipelineNames(config.projectDir)) pipelines.push(await loadPipeline(config.projectDir, name));
  return withSession<Outcome>(
    async ({ db, logger }) => {
      const counts = await prune(db, pipelines, { olderThanMs, now: config.now ?? new Date(), dryRun: options.dryRun ?? false, lockLeaseMs: config.lockLeaseMs, log: logger });
      commandIo().stdout.write(`${JSON.stringify({ dryRun: options.dryRun ?? false, ...counts })}\n`);
      return 'completed';
    },
    { config, existing: true },
  );
}
