import type { Knex } from 'knex';
import type { ColumnSpec } from '../../column/column-type.ts';

/**
 * Adds a business column with a SQLite type that holds its canonical value exactly. SQLite has
 * no decimal type (knex's `decimal` is a REAL affinity that rounds), so decimals, dates and
 * instants are stored as their canonical text (floats as REAL, an 8-byte double), which compares exactly. Text compares with
 * SQLite's default BINARY collation: exactly, case and trailing spaces included.
 */
export function addSqliteColumn(table: Knex.TableBuilder, name: string, spec: ColumnSpec): Knex.ColumnBuilder {
  const builder = spec.type === 'integer' || spec.type === 'boolean' ? table.integer(name) : spec.type === 'float' ? table.double(name) : table.text(name);
  return spec.nullable ? builder.nullable() : builder.notNullable();
}

/** A canonical value as better-sqlite3 binds it (booleans as 0/1, JSON as text). */
export function toSqliteValue(spec: ColumnSpec, value: unknown): unknown {
  if (value === null) return null;
  if (spec.type === 'boolean') return value ? 1 : 0;
  return spec.type === 'json' ? JSON.stringify(value) : value;
}

/** A value as better-sqlite3 read it, back to canonical form. */
export function fromSqliteValue(spec: ColumnSpec, value: unknown): unknown {
  if (value === null || value === undefined) return null;
  switch (spec.type) {
    case 'boolean': return value === 1;
    case 'integer': return Number(value);
    case 'float': return Number(value);
    case 'json': return JSON.parse(value as string);
    default: return value;
  }
}
