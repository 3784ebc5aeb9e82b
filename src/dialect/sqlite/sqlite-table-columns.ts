import type { Knex } from 'knex';
import type { ColumnSpec } from '../../column/column-type.ts';
import type { TableColumn } from '../table-column.ts';

/**
 * The columns of a table, in table order, each with its declared type, lowercase, as
 * `pragma table_info` reports it; undefined when there is no such table
 * (https://www.sqlite.org/pragma.html#pragma_table_info). SQLite stores decimals, dates, instants
 * and JSON as text (floats as knex's `float`, REAL affinity), so a change among those types is not visible here.
 */
export async function readSqliteTableColumns(knex: Knex, table: string): Promise<TableColumn[] | undefined> {
  const rows = (await knex.raw('select name, type, "notnull" as not_null, pk from pragma_table_info(?) order by cid', [table])) as { name: string; type: string; not_null: number; pk: number }[];
  if (rows.length === 0) return undefined;
  return rows.map((row) => ({ name: row.name, type: row.type.toLowerCase(), nullable: row.not_null === 0, primaryKey: row.pk > 0 }));
}

/** The type `addSqliteColumn` declares for a spec, as {@link readSqliteTableColumns} reports it. */
export function sqliteColumnTypeName(spec: ColumnSpec): string {
  return spec.type === 'integer' || spec.type === 'boolean' ? 'integer' : spec.type === 'float' ? 'float' : 'text';
}
