import type { ColumnSpec } from '../column/column-type.ts';

/** A column as the database holds it: the adapter's normalised type name and its nullability. */
export interface LiveColumnType {
  readonly type: string;
  readonly nullable: boolean;
}

/**
 * One difference between a pipeline's declared `columns` and a live table (see
 * `findSchemaDrift`):
 * - `missing-table`: the table does not exist (its migration is missing or not applied);
 * - `missing-column`: the pipeline declares a column the table lacks (`declared` set);
 * - `extra-column`: the table has a business column the pipeline does not declare (`live` set);
 * - `changed-column`: both have it, with another type or nullability (`declared` and `live`).
 * `expectedType` is the type the adapter would create for `declared`, in the same normalised
 * form as `live.type`.
 */
export interface SchemaDifference {
  readonly kind: 'missing-table' | 'missing-column' | 'extra-column' | 'changed-column';
  readonly pipeline: string;
  /** Which of the pipeline's tables: its staging or target table, a derived table or a child table. */
  readonly role: 'staging' | 'target' | 'derived' | 'child';
  readonly table: string;
  readonly column?: string;
  readonly declared?: ColumnSpec;
  readonly expectedType?: LiveColumnType;
  readonly live?: LiveColumnType;
}
