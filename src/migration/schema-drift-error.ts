import { IdemError } from '../errors/idem-error.ts';
import { formatSchemaDrift, suggestedMigrationName } from './format-schema-drift.ts';
import type { SchemaDifference } from './schema-difference.ts';

/**
 * A pipeline's declared columns differ from its live tables (see `findSchemaDrift`): outcome
 * `usage` (exit 2), thrown before the run writes anything. The message holds the
 * column-by-column table and the commands that fix it.
 */
export class SchemaDriftError extends IdemError {
  readonly differences: readonly SchemaDifference[];

  constructor(differences: readonly SchemaDifference[]) {
    const pipelines = [...new Set(differences.map((difference) => difference.pipeline))].join(', ');
    const missing = differences.filter((difference) => difference.kind === 'missing-table').map((difference) => difference.table);
    const what = missing.length > 0 ? `table(s) ${missing.join(', ')} do not exist (a migration is missing)` : "the declared columns differ from the database's tables";
    super(
      `schema drift in pipeline ${pipelines}: ${what}; nothing was written.\n` +
        formatSchemaDrift(differences) +
        `fix: idem migrate --make ${suggestedMigrationName(differences)}, review the new file in migrations/, then idem migrate` +
        ' (or change the pipeline\'s columns back to what the database has)',
      { code: 'SCHEMA_DRIFT', outcome: 'usage' },
    );
    this.differences = differences;
  }
}
