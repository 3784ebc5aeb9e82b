import { loadConfig } from '../../config/load-config.ts';
import { UsageError } from '../../errors/usage-error.ts';
import { loadPipeline } from '../../pipeline/load-pipeline.ts';
import { runPostWorker } from '../../post/run-post-worker.ts';
import { resolveBusinessDate } from '../../runs/business-date.ts';
import { fileRunKey, parseRunKey } from '../../runs/run-key.ts';
import { withSession } from '../session.ts';

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
 * (see `runPostWorker`); returns the exit code (0 completed or nothing to do, 3 needs review,
 * 1 failed).
 */
export async function workCommand(name: string, options: WorkCommandOptions): Promise<number> {
  const chosen = [options.runKey !== undefined && '--run-key', options.date !== undefined && '--date', options.file !== undefined && '--file'].filter(Boolean);
  if (chosen.length > 1) throw new UsageError(`use one of --run-key, --date or --file (got ${chosen.join(' and ')})`);
  if (chosen.length === 0) throw new UsageError('missing required flag --run-key KEY (or --date YYYY-MM-DD, or --file PATH)');
  const typedRunKey = options.runKey === undefined ? undefined : parseRunKey(options.runKey);
  const config = loadConfig();
  const pipeline = await loadPipeline(config.projectDir, name);
  const runKey =
    typedRunKey ??
    (options.file !== undefined ? (await fileRunKey(options.file)).value : resolveBusinessDate(options.date!, pipeline.timeZone, config.now ?? new Date()));
  return withSession(
    async (session) => {
      const result = await runPostWorker(session, {
        pipeline,
        runKey,
        ...(options.waitMs === undefined ? {} : { waitMs: options.waitMs }),
        ...(options.pollMs === undefined ? {} : { pollMs: options.pollMs }),
      });
      return result.exitCode;
    },
    { config },
  );
}
