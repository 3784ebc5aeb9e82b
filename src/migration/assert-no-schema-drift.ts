import type { Database } from '../db/database.ts';
import type { PipelineDefinition } from '../pipeline/pipeline-definition.ts';
import { findSchemaDrift } from './find-schema-drift.ts';

/**
 * Refuses to run a pipeline whose declared columns differ from its live tables. Every run asks,
 * a no-op included; the error's module (its table of differences) is loaded only when there are some.
 * @throws SchemaDriftError (exit 2) with the column-by-column differences and the fix.
 */
export async function assertNoSchemaDrift(db: Database, pipeline: PipelineDefinition): Promise<void> {
  const differences = await findSchemaDrift(db, pipeline);
  if (differences.length > 0) {
    const { SchemaDriftError } = await import('./schema-drift-error.ts');
    throw new SchemaDriftError(differences);
  }
}
