import { sourceKindOf } from '../source/source-kinds.ts';
import type { PipelineCheck } from './pipeline-check.ts';

/**
 * Where the source is, as its kind checks it (`SourceKind.checkLocation`): a CSV source's
 * directory exists (`IDEM_SOURCE_DIR`, else the pipeline's `directory`, relative to the project
 * directory); an HTTP source has a base URL in `IDEM_SOURCES`. A date's file is not looked for:
 * which dates have files is the run's business.
 */
export const checkSourceLocation: PipelineCheck = {
  name: 'source location',
  check: (pipeline, { config }) => sourceKindOf(pipeline.source).checkLocation(pipeline.source, { pipelineName: pipeline.name, timeZone: pipeline.timeZone, config }),
};
