import { statSync } from 'node:fs';
import path from 'node:path';
import type { PipelineCheck } from './pipeline-check.ts';

/**
 * Where the source is: a CSV source's directory exists (`IDEM_SOURCE_DIR`, else the pipeline's
 * `directory`, relative to the project directory); an HTTP source has a base URL in `IDEM_SOURCES`.
 * A date's file is not looked for: which dates have files is the run's business.
 */
export const checkSourceLocation: PipelineCheck = {
  name: 'source location',
  check(pipeline, { config }) {
    const { source } = pipeline;
    if (source.kind === 'http-json') {
      return config.sources[pipeline.name]
        ? []
        : [`the HTTP source has no base URL: set IDEM_SOURCES='{"${pipeline.name}":{"url":"https://…"}}'`];
    }
    if (source.directory === undefined && config.sourceDir === undefined) return []; // a --file-only pipeline
    const setting = config.sourceDir === undefined ? `source.directory ${JSON.stringify(source.directory)}` : `IDEM_SOURCE_DIR ${JSON.stringify(config.sourceDir)}`;
    const directory = path.resolve(config.projectDir, (config.sourceDir ?? source.directory)!);
    let isDirectory: boolean;
    try {
      isDirectory = statSync(directory).isDirectory();
    } catch {
      return [`the source directory ${directory} does not exist (${setting})`];
    }
    return isDirectory ? [] : [`the source directory ${directory} is not a directory (${setting})`];
  },
};
