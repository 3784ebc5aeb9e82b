import type { Database } from '../db/database.ts';
import { DuplicateKeyError } from '../errors/duplicate-key-error.ts';
import type { PipelineDefinition } from '../pipeline/pipeline-definition.ts';

/** How many duplicate keys an error message names. */
const KEYS_IN_MESSAGE = 5;

/**
 * Applies the pipeline's duplicate-key rule to the staged run, in SQL over the whole staging
 * table, so the outcome is the same for any batch size (see `DuplicateKeyRule`).
 * @returns how many staged rows were removed as duplicates.
 * @throws DuplicateKeyError naming the first keys and their lines.
 */
export async function applyDuplicateKeyRule(db: Database, pipeline: PipelineDefinition): Promise<number> {
  const staging = pipeline.tables.staging;
  const duplicates = (await db.knex(staging)
    .select('source_reference')
    .count({ rows: '*' })
    .countDistinct({ versions: 'row_hash' })
    .min({ first_line: 'source_line' })
    .max({ last_line: 'source_line' })
    .groupBy('source_system', 'source_reference')
    .havingRaw('count(*) > 1')
    .orderBy('source_reference')) as { source_reference: string; rows: number | string; versions: number | string; first_line: number | null; last_line: number | null }[];
  if (duplicates.length === 0) return 0;

  const describe = (rows: typeof duplicates): string =>
    rows.slice(0, KEYS_IN_MESSAGE)
      .map((d) => `${d.source_reference} (${Number(d.rows)}×, lines ${d.first_line ?? '?'}..${d.last_line ?? '?'})`)
      .join(', ') + (rows.length > KEYS_IN_MESSAGE ? `, and ${rows.length - KEYS_IN_MESSAGE} more` : '');
  const keys = duplicates.map((d) => d.source_reference);
  if (pipeline.duplicateKeys === 'error') {
    throw new DuplicateKeyError(`${duplicates.length} key(s) occur more than once in this run and the pipeline's rule is duplicateKeys: 'error': ${describe(duplicates)}`, keys);
  }
  if (pipeline.duplicateKeys === 'collapse-identical') {
    const conflicting = duplicates.filter((d) => Number(d.versions) > 1);
    if (conflicting.length > 0) {
      throw new DuplicateKeyError(`${conflicting.length} key(s) occur more than once with different values and the pipeline's rule is duplicateKeys: 'collapse-identical': ${describe(conflicting)}`, conflicting.map((d) => d.source_reference));
    }
  }
  return db.adapter.deleteSupersededStagingRows(db.knex, staging);
}
