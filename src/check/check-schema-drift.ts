import { findSchemaDrift } from '../migration/find-schema-drift.ts';
import { suggestedMigrationName } from '../migration/format-schema-drift.ts';
import type { SchemaDifference } from '../migration/schema-difference.ts';
import type { PipelineCheck } from './pipeline-check.ts';

const typeText = (column: { type: string; nullable: boolean } | undefined): string => (column ? `${column.type} ${column.nullable ? 'null' : 'not null'}` : 'nothing');

function describeDifference(difference: SchemaDifference): string {
  const where = `${difference.role} table ${difference.table}`;
  switch (difference.kind) {
    case 'missing-table':
      return `${where} does not exist (a migration is missing)`;
    case 'extra-column':
      return `${where} column ${difference.column} (${typeText(difference.live)}) is not declared in columns`;
    default:
      return `${where} column ${difference.column}: the pipeline needs ${typeText(difference.expectedType)}, the database has ${difference.live ? typeText(difference.live) : 'no such column'}`;
  }
}

/**
 * The pipeline's `columns` against its live staging and target tables (`findSchemaDrift`, the
 * check `idem run` makes before any write): one line per difference, each ending with the
 * command that fixes it. Opens the configured database; `idem check --no-database` skips it.
 */
export const checkSchemaDrift: PipelineCheck = {
  name: 'columns against the database',
  needsDatabase: true,
  async check(pipeline, { database }) {
    const differences = await findSchemaDrift(await database(), pipeline);
    const fix = `fix: idem migrate --make ${suggestedMigrationName(differences)}`;
    return differences.map((difference) => `schema drift: ${describeDifference(difference)}; ${fix}`);
  },
};
