import path from 'node:path';
import type { ResolvedConfig } from '../config/resolved-config.ts';
import { UsageError } from '../errors/usage-error.ts';
import type { PipelineDefinition } from '../pipeline/pipeline-definition.ts';
import type { RunKey } from '../runs/run-key.ts';

/**
 * Where a run reads from.
 * - CSV: `--file` as given, or for a business date the pipeline's file for that date in its
 *   source directory (`IDEM_SOURCE_DIR` overrides the pipeline's `directory`).
 * - HTTP JSON: the first page's URL, the pipeline's base URL from `IDEM_SOURCES` (any trailing
 *   `/` dropped) followed by its `path` (for the business date, when `path` is a function).
 *
 * Called before the run takes its lock, so a configuration error stops it at once.
 * @throws UsageError when an HTTP source has no `IDEM_SOURCES` entry (naming the variable, never
 *   echoing its value), when it is run with `--file`, or when its `path` function gives a path
 *   that does not start with `/`, or when a CSV source without dated files is run for a date.
 */
export function resolveSourceLocation(config: ResolvedConfig, pipeline: PipelineDefinition, runKey: RunKey): string {
  const { source } = pipeline;
  switch (source.kind) {
    case 'csv': {
      if (runKey.kind === 'file') return runKey.file;
      if (source.directory === undefined || source.fileForDate === undefined) {
        throw new UsageError(`pipeline "${pipeline.name}" declares no dated files (csvSource directory and fileForDate): run it with --file PATH`);
      }
      const directory = path.resolve(config.projectDir, config.sourceDir ?? source.directory);
      return path.join(directory, source.fileForDate(runKey.businessDate));
    }
    case 'http-json': {
      if (runKey.kind === 'file') throw new UsageError(`pipeline "${pipeline.name}" reads an HTTP API, not a file: run it with --date YYYY-MM-DD`);
      const settings = config.sources[pipeline.name];
      if (!settings) {
        throw new UsageError(`pipeline "${pipeline.name}" reads an HTTP API with no base URL: set IDEM_SOURCES='{"${pipeline.name}":{"url":"https://…"}}'`);
      }
      const sourcePath = typeof source.path === 'string' ? source.path : source.path(runKey.businessDate);
      if (typeof sourcePath !== 'string' || !sourcePath.startsWith('/')) {
        throw new UsageError(`pipeline "${pipeline.name}": its source path for ${runKey.businessDate} must start with "/" (got ${JSON.stringify(sourcePath)})`);
      }
      return `${settings.url.replace(/\/+$/, '')}${sourcePath}`;
    }
  }
}
