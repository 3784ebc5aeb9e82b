import { columnSpecSource } from '../column/column-spec-source.ts';
import { formatTable } from '../text/format-table.ts';
import type { LiveColumnType, SchemaDifference } from './schema-difference.ts';

const typeText = (column: LiveColumnType | undefined): string => (column ? `${column.type} ${column.nullable ? 'null' : 'not null'}` : '(none)');

/**
 * Schema differences as a column-by-column table: table, column, what the pipeline declares
 * (its `column.…` call), the SQL type that declaration needs, and what the database has.
 */
export function formatSchemaDrift(differences: readonly SchemaDifference[]): string {
  const rows = differences.map((difference) => {
    switch (difference.kind) {
      case 'missing-table':
        return [difference.table, '(table)', `${difference.role} table of ${difference.pipeline}`, '', 'no such table'];
      case 'extra-column':
        return [difference.table, difference.column!, '(not declared)', '', typeText(difference.live)];
      default:
        return [
          difference.table,
          difference.column!,
          difference.declared ? columnSpecSource(difference.declared) : '(framework column)',
          typeText(difference.expectedType),
          difference.live ? typeText(difference.live) : '(no such column)',
        ];
    }
  });
  return formatTable(['table', 'column', 'pipeline declares', 'needs', 'database has'], rows);
}

/** The name `idem migrate --make` proposes for a migration that removes these differences. */
export function suggestedMigrationName(differences: readonly SchemaDifference[]): string {
  // Only new derived or child tables: named after them, not after the pipeline they join.
  if (differences.every((difference) => difference.kind === 'missing-table' && (difference.role === 'derived' || difference.role === 'child'))) {
    return `create_${[...new Set(differences.map((difference) => difference.table))].join('_and_')}`.slice(0, 100);
  }
  const tables = [...new Set(differences.map((difference) => difference.pipeline))];
  const verb = differences.every((difference) => difference.kind === 'missing-table') ? 'create' : 'alter';
  const subject = tables.length === 1 ? tables[0]! : 'pipelines';
  return `${verb}_${subject}`.replace(/[^a-z0-9]+/gi, '_').toLowerCase();
}
