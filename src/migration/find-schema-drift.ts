import type { Database } from '../db/database.ts';
import type { PipelineDefinition } from '../pipeline/pipeline-definition.ts';
import { deletesRecords, RECORD_DELETION_COLUMNS } from '../pipeline/record-deletions.ts';
import { OPTIONAL_FRAMEWORK_COLUMNS, PIPELINE_FRAMEWORK_COLUMNS, RECORD_DELETION_SPECS } from './pipeline-framework-columns.ts';
import type { SchemaDifference } from './schema-difference.ts';

/**
 * Compares a pipeline's declared `columns` (names, types as the adapter would create them, and
 * nullability) with its live staging and target tables, and each derived and child table's
 * declared columns with its live table. Reads only (the catalog), writes
 * nothing; `idem run` calls it before any write and `idem migrate --make` writes a migration
 * from what it returns. On SQLite, decimal, date, instant, json and text columns are all stored
 * as text, so a change among those types is not visible there; names, nullability and
 * integer/boolean against text are.
 *
 * @returns the differences, staging table first, then the target, the derived and the child tables, each table's in column order; `[]` when the
 *   tables match.
 */
export async function findSchemaDrift(db: Database, pipeline: PipelineDefinition): Promise<SchemaDifference[]> {
  const differences: SchemaDifference[] = [];
  const tables = [
    ...(['staging', 'target'] as const).map((role) => ({ role, table: pipeline.tables[role], columns: pipeline.columns })),
    ...pipeline.derived.map(({ table, columns }) => ({ role: 'derived' as const, table, columns })),
    ...pipeline.children.map(({ table, columns }) => ({ role: 'child' as const, table, columns })),
  ];
  for (const { role, table, columns } of tables) {
    const base = { pipeline: pipeline.name, role, table };
    const live = await db.adapter.readTableColumns(db.knex, table);
    if (live === undefined) {
      differences.push({ ...base, kind: 'missing-table' });
      continue;
    }
    const liveByName = new Map(live.map((column) => [column.name, column]));
    const framework: readonly string[] = role === 'target' ? [...PIPELINE_FRAMEWORK_COLUMNS.target, ...RECORD_DELETION_COLUMNS] : PIPELINE_FRAMEWORK_COLUMNS[role];
    for (const [name, declared] of Object.entries(columns)) {
      const expectedType = { type: db.adapter.columnTypeName(name, declared), nullable: declared.nullable };
      const found = liveByName.get(name);
      if (!found) differences.push({ ...base, kind: 'missing-column', column: name, declared, expectedType });
      else if (found.type !== expectedType.type || found.nullable !== expectedType.nullable) {
        differences.push({ ...base, kind: 'changed-column', column: name, declared, expectedType, live: { type: found.type, nullable: found.nullable } });
      }
    }
    for (const column of live) {
      if (framework.includes(column.name) || column.name in columns) continue;
      differences.push({ ...base, kind: 'extra-column', column: column.name, live: { type: column.type, nullable: column.nullable } });
    }
    for (const name of PIPELINE_FRAMEWORK_COLUMNS[role]) {
      if (!liveByName.has(name) && !OPTIONAL_FRAMEWORK_COLUMNS.includes(name)) differences.push({ ...base, kind: 'missing-column', column: name });
    }
    // A target created before idem marked deletions lacks their columns: a pipeline that deletes
    // needs them, added like declared columns (nullable) by `idem migrate --make`.
    if (role === 'target' && deletesRecords(pipeline)) {
      for (const [name, declared] of Object.entries(RECORD_DELETION_SPECS)) {
        if (!liveByName.has(name)) differences.push({ ...base, kind: 'missing-column', column: name, declared, expectedType: { type: db.adapter.columnTypeName(name, declared), nullable: true } });
      }
    }
  }
  return differences;
}
