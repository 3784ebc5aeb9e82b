import type { Knex } from 'knex';
import type { ColumnSpec } from '../../column/column-type.ts';
import type { TableColumn } from '../table-column.ts';

/**
 * The columns of a table in the session's schema search path, in table order, each type as
 * PostgreSQL's `format_type` writes it (`numeric(10,8)`, `character varying(200)`,
 * `timestamp(3) with time zone`); undefined when there is no such table
 * (https://www.postgresql.org/docs/current/catalog-pg-attribute.html).
 */
export async function readPostgresTableColumns(knex: Knex, table: string): Promise<TableColumn[] | undefined> {
  const result = await knex.raw<{ rows: { name: string; type: string; nullable: boolean; primary_key: boolean }[] }>(
    `select a.attname as name, format_type(a.atttypid, a.atttypmod) as type, not a.attnotnull as nullable,
            exists (select 1 from pg_index i where i.indrelid = a.attrelid and i.indisprimary and a.attnum = any(i.indkey)) as primary_key
       from pg_attribute a
      where a.attrelid = to_regclass(?) and a.attnum > 0 and not a.attisdropped
      order by a.attnum`,
    [table],
  );
  return result.rows.length === 0 ? undefined : result.rows.map((row) => ({ name: row.name, type: row.type, nullable: row.nullable, primaryKey: row.primary_key }));
}

/** The type `addPostgresColumn` creates for a spec, as {@link readPostgresTableColumns} reports it. */
export function postgresColumnTypeName(spec: ColumnSpec): string {
  switch (spec.type) {
    case 'text': return spec.maxLength === undefined ? 'text' : `character varying(${spec.maxLength})`;
    case 'integer': return 'bigint';
    case 'decimal': return `numeric(${spec.precision},${spec.scale})`;
    case 'date': return 'date';
    case 'instant': return 'timestamp(3) with time zone';
    case 'float': return 'double precision';
    case 'boolean': return 'boolean';
    case 'json': return 'text';
  }
}
