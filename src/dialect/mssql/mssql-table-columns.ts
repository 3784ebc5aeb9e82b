import type { Knex } from 'knex';
import type { ColumnSpec } from '../../column/column-type.ts';
import type { TableColumn } from '../table-column.ts';
import { MSSQL_TEXT_COLLATION, mssqlColumnType } from './mssql-types.ts';

interface MssqlColumnRow {
  readonly name: string;
  readonly type: string;
  readonly max_length: number;
  readonly precision: number;
  readonly scale: number;
  readonly nullable: boolean | number;
  readonly primary_key: boolean | number;
}

/** `sys.columns` facts as the type name SQL Server's DDL uses (`nvarchar(max)`, `decimal(12,2)`, `datetime2(3)`). */
export function mssqlTypeNameOf(row: Omit<MssqlColumnRow, 'name' | 'nullable' | 'primary_key'>): string {
  const type = row.type.toLowerCase();
  switch (type) {
    // max_length is in bytes (two per nvarchar character), -1 for max.
    case 'nvarchar': case 'nchar': return `${type}(${row.max_length === -1 ? 'max' : row.max_length / 2})`;
    case 'varchar': case 'char': case 'varbinary': case 'binary': return `${type}(${row.max_length === -1 ? 'max' : row.max_length})`;
    case 'decimal': case 'numeric': return `${type}(${row.precision},${row.scale})`;
    case 'datetime2': case 'datetimeoffset': case 'time': return `${type}(${row.scale})`;
    default: return type;
  }
}

/**
 * The columns of a table, in table order, from `sys.columns`; undefined when there is no such
 * table (https://learn.microsoft.com/sql/relational-databases/system-catalog-views/sys-columns-transact-sql).
 */
export async function readMssqlTableColumns(knex: Knex, table: string): Promise<TableColumn[] | undefined> {
  const rows = (await knex.raw(
    `select c.name as name, type_name(c.user_type_id) as type, c.max_length as max_length, c.precision as precision, c.scale as scale, c.is_nullable as nullable,
            case when exists (select 1 from sys.index_columns ic join sys.indexes i on i.object_id = ic.object_id and i.index_id = ic.index_id
                               where i.is_primary_key = 1 and ic.object_id = c.object_id and ic.column_id = c.column_id) then 1 else 0 end as primary_key
       from sys.columns c
      where c.object_id = object_id(?)
      order by c.column_id`,
    [table],
  )) as MssqlColumnRow[];
  if (rows.length === 0) return undefined;
  return rows.map((row) => ({ name: row.name, type: mssqlTypeNameOf(row), nullable: row.nullable === true || row.nullable === 1, primaryKey: row.primary_key === true || row.primary_key === 1 }));
}

/** The type `addMssqlColumn` creates for a spec (without its collation), as {@link readMssqlTableColumns} reports it. */
export function mssqlColumnTypeName(name: string, spec: ColumnSpec): string {
  return mssqlColumnType(name, spec).replace(` collate ${MSSQL_TEXT_COLLATION}`, '').replace(/, /g, ',');
}
