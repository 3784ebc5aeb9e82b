import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { UsageError } from '../errors/usage-error.ts';
import type { PipelineDefinition } from '../pipeline/pipeline-definition.ts';
import { listQuarantine } from '../quarantine/quarantine-queries.ts';
import { isCutQuarantineText, QUARANTINE_TEXT_MAX_CHARS } from '../quarantine/quarantine-text.ts';
import { dateRunKey, type RunKey } from '../runs/run-key.ts';
import { sourceKindOf } from '../source/source-kinds.ts';
import type { RunContext } from './run-context.ts';
import { runPipeline } from './run-pipeline.ts';
import type { RunResult } from './run-result.ts';

/**
 * Re-stages a run key's quarantined rows after a fix (a corrected pipeline, or corrected raw
 * text), as a forced run of the same run key under the normal lock and run rules: rows that pass
 * now are staged, upserted and posted; rows that still fail are quarantined again.
 *
 * Only for pipelines whose CSV source declares `invalidRows: 'quarantine'` (row-level records):
 * under `'fail'` the whole run failed, and a record built from several rows (an invoice from its
 * lines) must be rebuilt from the whole source, so the fix is a plain rerun of the run key.
 * @throws UsageError for other pipelines, when nothing is quarantined for the run key, or when a
 *   quarantined row has no raw text or was kept cut (`isCutQuarantineText`).
 */
export async function replayQuarantine(ctx: RunContext, args: { pipeline: PipelineDefinition; runKey: string; triggeredBy: string; commandLine?: string }): Promise<RunResult> {
  const { pipeline } = args;
  // A run that loads past bad rows completed, so running it again takes --force; one that does
  // not (invalidRows: 'fail') failed, and a plain rerun is enough. A fixed file is a new run key.
  const fileRunKey = args.runKey.startsWith('file:');
  const rerun = (completed: boolean): string =>
    fileRunKey ? `fix the file and run it (idem run ${pipeline.name} --file <the fixed file>)` : `fix the source and rerun the run key (idem run ${pipeline.name} --date ${args.runKey}${completed ? ' --force' : ''})`;
  const kind = sourceKindOf(pipeline.source);
  if (!kind.replay) throw new UsageError(`${pipeline.name} reads a ${kind.name} source, whose rows cannot be replayed from their text: ${rerun(true)}`);
  if (pipeline.source.invalidRows !== 'quarantine') throw new UsageError(`${pipeline.name} does not load past bad rows (invalidRows: 'fail'): ${rerun(false)}`);
  const entries = await listQuarantine(ctx.db, { jobName: pipeline.name, runKey: args.runKey, limit: Number.MAX_SAFE_INTEGER });
  if (entries.length === 0) throw new UsageError(`nothing quarantined for ${pipeline.name} run key ${args.runKey}`);
  // A record rejected by a column rule has no source text; replaying the rest would drop it.
  const recordLevel = entries.filter((e) => e.raw === null).length;
  if (recordLevel > 0) throw new UsageError(`${recordLevel} quarantined record(s) of run key ${args.runKey} have no source row to replay: ${rerun(true)}`);
  // A cut text is not the record: replayed, it would load a shortened last field.
  const cut = entries.filter((e) => isCutQuarantineText(e.raw!)).length;
  if (cut > 0) throw new UsageError(`${cut} quarantined row(s) of run key ${args.runKey} were longer than ${QUARANTINE_TEXT_MAX_CHARS} characters and are kept cut: ${rerun(true)}`);
  const dir = mkdtempSync(path.join(tmpdir(), 'idem-replay-'));
  const file = path.join(dir, 'quarantine-replay.csv');
  try {
    const replay = kind.replay(pipeline.source, entries.map((e) => e.raw!));
    writeFileSync(file, replay.text);
    const runKey: RunKey = args.runKey.startsWith('file:') ? { kind: 'file', value: args.runKey, file } : dateRunKey(args.runKey);
    const replayed: PipelineDefinition = { ...pipeline, source: replay.source };
    return await runPipeline(ctx, { pipeline: replayed, runKey, force: true, triggeredBy: args.triggeredBy, ...(args.commandLine === undefined ? {} : { commandLine: args.commandLine }), sourceLocation: file });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
