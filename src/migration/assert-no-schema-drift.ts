import type { Database } from '../db/database.ts';
import type { PipelineDefinition } from '../pipeline/pipeline-definition.ts';
import { findSchemaDrift } from './find-schema-drift.ts';

/** The pipelines whose tables an open database was found to match: a session is one command's. */
const matching = new WeakMap<Database, WeakSet<PipelineDefinition>>();

/**
 * Refuses to run a pipeline whose declared columns differ from its live tables. Every command
 * that runs a pipeline asks before its first write, a no-op included; once the tables match,
 * the same open database does not ask again for the same pipeline definition: a backfill's or a
 * catch-up's dates, and the run command's own check and its run's, cost one check (three catalog
 * reads, about 1.5 ms on PostgreSQL) between them. The error's module (its table of differences)
 * is loaded only when there are some.
 * @throws SchemaDriftError (exit 2) with the column-by-column differences and the fix.
 */
export async function assertNoSchemaDrift(db: Database, pipeline: PipelineDefinition): Promise<void> {
  if (matching.get(db)?.has(pipeline)) return;
  const differences = await findSchemaDrift(db, pipeline);
  if (differences.length > 0) {
    const { SchemaDriftError } = await import('./schema-drift-error.ts');
    throw new SchemaDriftError(differences);
  }
  let matched = matching.get(db);
  if (matched === undefined) matching.set(db, (matched = new WeakSet()));
  matched.add(pipeline);
}
