import { UsageError } from '../errors/usage-error.ts';
import type { PipelineDefinition } from '../pipeline/pipeline-definition.ts';
import { resolveBusinessDate } from '../runs/business-date.ts';
import { dateRunKey, fileRunKey, type RunKey } from '../runs/run-key.ts';

/** The flags that name one run key: a business date or a source file. */
export interface RunKeyFlags {
  readonly date?: string;
  readonly file?: string;
}

/** A command's own way to name its runs instead of `--date`/`--file` (`idem run --catch-up`, `idem work --run-key`). */
export interface OtherRunKeyFlag {
  /** The flag, as the messages name it: `--run-key`. */
  readonly flag: string;
  /** The flag with its argument, for the message when no run key flag was given: `--run-key KEY`. */
  readonly usage: string;
  /** Whether the command line has it. */
  readonly given: boolean;
}

/**
 * Checks that exactly one of `--date`, `--file` and the command's own alternative was given.
 * Called before anything is loaded, so a usage slip is the first thing reported.
 * @throws UsageError naming the flags given together, or the ones missing.
 */
export function assertOneRunKeyFlag(flags: RunKeyFlags, other?: OtherRunKeyFlag): void {
  const accepted = ['--date', '--file', ...(other ? [other.flag] : [])];
  const given = [flags.date !== undefined && '--date', flags.file !== undefined && '--file', other?.given && other.flag].filter((flag) => typeof flag === 'string');
  if (given.length > 1) throw new UsageError(`use one of ${accepted.slice(0, -1).join(', ')} or ${accepted.at(-1)} (got ${given.join(' and ')})`);
  if (given.length === 0) throw new UsageError(`missing required flag --date (expected YYYY-MM-DD) or --file PATH${other ? ` (or ${other.usage})` : ''}`);
}

/**
 * The run key `--date` or `--file` names: a business date in the pipeline's time zone (`today`
 * and `yesterday` resolved at `now`), or the file's name and content hash (see `fileRunKey`).
 * @throws UsageError unless exactly one of them is given, for a date that is not one, or a file
 *   that does not exist.
 */
export async function resolveRunKey(flags: RunKeyFlags, pipeline: PipelineDefinition, now: Date): Promise<RunKey> {
  assertOneRunKeyFlag(flags);
  if (flags.file !== undefined) return fileRunKey(flags.file);
  return dateRunKey(resolveBusinessDate(flags.date!, pipeline.timeZone, now));
}
