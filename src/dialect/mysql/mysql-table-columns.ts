import type { Knex } from 'knex';
import type { ColumnSpec } from '../../column/column-type.ts';
import type { TableColumn } from '../table-column.ts';

/**
 * The columns of a table in the connection's database, in table order, each type as
 * `information_schema.columns.column_type` writes it, lowercase, with an integer's display
 * width dropped (MariaDB and MySQL 5 write `bigint(20)`, MySQL 8 `bigint`); undefined when there
 * is no such table (https://mariadb.com/kb/en/information-schema-columns-table/).
 */
export async function readMysqlTableColumns(knex: Knex, table: string): Promise<TableColumn[] | undefined> {
  const [rows] = (await knex.raw(
    `select column_name as name, column_type as type, is_nullable as nullable, column_key as column_key
       from information_schema.columns
      where table_schema = database() and table_name = ?
      order by ordinal_position`,
    [table],
  )) as [{ name: string; type: string; nullable: string; column_key: string }[], unknown];
  if (rows.length === 0) return undefined;
  return rows.map((row) => ({
    name: row.name,
    type: String(row.type).toLowerCase().replace(/^(bigint|int|smallint|mediumint)\(\d+\)/, '$1').replace(/\s+unsigned$/, ' unsigned'),
    nullable: row.nullable === 'YES',
    primaryKey: row.column_key === 'PRI',
  }));
}

/** The type `addMysqlColumn` creates for a spec, as {@link readMysqlTableColumns} reports it. */
export function mysqlColumnTypeName(spec: ColumnSpec): string {
  switch (spec.type) {
    case 'text': return spec.maxLength === undefined ? 'longtext' : `varchar(${spec.maxLength})`;
    case 'integer': return 'bigint';
    case 'decimal': return `decimal(${spec.precision},${spec.scale})`;
    case 'date': return 'date';
    case 'instant': return 'datetime(3)';
    case 'float': return 'double';
    case 'boolean': return 'tinyint(1)';
    case 'json': return 'longtext';
  }
}
