import type { ResolvedConfig } from '../config/resolved-config.ts';
import type { PipelineDefinition } from '../pipeline/pipeline-definition.ts';
import type { RunKey } from '../runs/run-key.ts';
import { sourceKindOf } from '../source/source-kinds.ts';

/**
 * Where a run reads from, as the source's kind locates it (`SourceKind.locate`): for a CSV source
 * `--file` as given, or the file for the business date in its source directory; for an HTTP JSON
 * source the first page's URL, the `IDEM_SOURCES` base URL followed by its `path`.
 *
 * Called before the run takes its lock, so a configuration error stops it at once.
 * @throws UsageError when the run key or the deployment does not fit the source (see each kind's `locate`).
 */
export function resolveSourceLocation(config: ResolvedConfig, pipeline: PipelineDefinition, runKey: RunKey): string {
  return sourceKindOf(pipeline.source).locate(pipeline.source, runKey, { pipelineName: pipeline.name, timeZone: pipeline.timeZone, config });
}
