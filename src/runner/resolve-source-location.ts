import path from 'node:path';
import type { ResolvedConfig } from '../config/resolved-config.ts';
import type { PipelineDefinition } from '../pipeline/pipeline-definition.ts';
import type { RunKey } from '../runs/run-key.ts';

/**
 * Where a run reads from: `--file` as given, or for a business date the pipeline's file for that
 * date in its source directory (`IDEM_SOURCE_DIR` overrides the pipeline's `directory`).
 */
export function resolveSourceLocation(config: ResolvedConfig, pipeline: PipelineDefinition, runKey: RunKey): string {
  if (runKey.kind === 'file') return runKey.file;
  const directory = path.resolve(config.projectDir, config.sourceDir ?? pipeline.source.directory);
  return path.join(directory, pipeline.source.fileForDate(runKey.businessDate));
}
