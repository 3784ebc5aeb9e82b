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
 * The pipeline's `columns` against its staging and target tables (`findSchemaDrift`, the check
 * `idem run` makes before any write): one line per difference, each ending with the command that
 * fixes it. On a migrated database, against its live tables. On one with migrations pending (a
 * fresh database in CI), against the tables the migration files make (applied to a throwaway
 * SQLite database, see `SchemaDatabase`): a missing or different migration is found there, and
 * the fix first migrates. When the files do not apply to SQLite, one line says the database is
 * not migrated. Opens the configured database; `idem check --no-database` skips it.
 */
export const checkSchemaDrift: PipelineCheck = {
  name: 'columns against the database',
  needsDatabase: true,
  async check(pipeline, { schemaDatabase }) {
    const schema = await schemaDatabase();
    if (schema.kind === 'none') {
      return [`the database is not migrated (${schema.pending.length} pending), and the migration files do not apply to a scratch SQLite database to check against (${schema.error}); run \`idem migrate\`, then idem check`];
    }
    const differences = await findSchemaDrift(schema.db, pipeline);
    const make = `idem migrate --make ${suggestedMigrationName(differences)}`;
    const fix = schema.kind === 'configured' ? `fix: ${make}` : `fix: idem migrate, then ${make}`;
    const against = schema.kind === 'configured' ? '' : ' (in the migration files; the database is not migrated yet)';
    return differences.map((difference) => `schema drift: ${describeDifference(difference)}${against}; ${fix}`);
  },
};
