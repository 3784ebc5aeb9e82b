import { checkDestinationBodies } from './check-destination-bodies.ts';
import { checkDestinationUrls } from './check-destination-urls.ts';
import { checkSchemaDrift } from './check-schema-drift.ts';
import { checkSourceLocation } from './check-source-location.ts';
import type { PipelineCheck } from './pipeline-check.ts';

/**
 * The checks `idem check` runs on every pipeline that loads, in this order. Loading itself is
 * the first check: `definePipeline` validates the definition (every key, enum and shape, source
 * options included; names, columns; a CSV header against its row schema) when the module is
 * imported. A new load-time check is a {@link PipelineCheck} in its own file, added here (and to
 * docs/writing-a-pipeline.md, "What idem checks, and when").
 */
export const PIPELINE_CHECKS: readonly PipelineCheck[] = [
  checkSourceLocation,
  checkDestinationUrls,
  checkDestinationBodies,
  checkSchemaDrift,
];
