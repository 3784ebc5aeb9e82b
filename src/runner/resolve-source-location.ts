import { existsSync, lstatSync, statSync } from 'node:fs';
import path from 'node:path';
import type { ResolvedConfig } from '../config/resolved-config.ts';
import { UsageError } from '../errors/usage-error.ts';
import type { PipelineDefinition } from '../pipeline/pipeline-definition.ts';
import type { RunKey } from '../runs/run-key.ts';

/**
 * `file`, unless it is a symbolic link: idem reads only regular files it is pointed at. A link
 * dropped into a source directory could make a run read any file the service user may read, and
 * a link re-pointed between runs reads other content under the same name.
 * @throws UsageError naming the link, never reading it.
 */
function refuseSymlink(file: string): string {
  if (existsSync(file) && lstatSync(file).isSymbolicLink()) {
    throw new UsageError(`source file ${file} is a symbolic link, and idem reads only regular files: point --file or the source directory at the file itself`);
  }
  return file;
}

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
 *   that does not start with `/`, when a CSV source without dated files is run for a date, when a
 *   CSV source's directory does not exist, and when its file is a symbolic link.
 */
export function resolveSourceLocation(config: ResolvedConfig, pipeline: PipelineDefinition, runKey: RunKey): string {
  const { source } = pipeline;
  switch (source.kind) {
    case 'csv': {
      if (runKey.kind === 'file') return refuseSymlink(runKey.file);
      if (source.directory === undefined || source.fileForDate === undefined) {
        throw new UsageError(`pipeline "${pipeline.name}" declares no dated files (csvSource directory and fileForDate): run it with --file PATH`);
      }
      const directory = path.resolve(config.projectDir, config.sourceDir ?? source.directory);
      // A missing file may be a day without data (`missing: 'skip'`); a missing directory is a
      // wrong setting or an unmounted share, whatever the pipeline says about missing files.
      if (!existsSync(directory) || !statSync(directory).isDirectory()) {
        throw new UsageError(`pipeline "${pipeline.name}": its source directory ${directory} does not exist or is not a directory (${config.sourceDir === undefined ? "the pipeline's directory" : 'IDEM_SOURCE_DIR'})`);
      }
      return refuseSymlink(path.join(directory, source.fileForDate(runKey.businessDate)));
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
