import type { Database } from '../db/database.ts';
import type { PipelineDefinition } from '../pipeline/pipeline-definition.ts';
import { findSchemaDrift } from './find-schema-drift.ts';
import { SchemaDriftError } from './schema-drift-error.ts';

/**
 * Refuses to run a pipeline whose declared columns differ from its live tables.
 * @throws SchemaDriftError (exit 2) with the column-by-column differences and the fix.
 */
export async function assertNoSchemaDrift(db: Database, pipeline: PipelineDefinition): Promise<void> {
  const differences = await findSchemaDrift(db, pipeline);
  if (differences.length > 0) throw new SchemaDriftError(differences);
}
