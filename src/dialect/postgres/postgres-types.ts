import type { Knex } from 'knex';
import pg from 'pg';
import type { ColumnSpec } from '../../column/column-type.ts';

const DATE_OID = 1082;

/**
 * pg type parsers for idem's connections: `date` stays the `YYYY-MM-DD` text the server sent
 * (pg's default builds a local-midnight `Date`, which shifts the day under a process time zone
 * west of UTC). Passed per connection, never set globally on the pg module.
 */
export const POSTGRES_TYPE_PARSERS = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    oid === DATE_OID ? (value: string) => value : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
};

/** Adds a business column with a PostgreSQL type that holds its canonical value exactly. */
export function addPostgresColumn(table: Knex.TableBuilder, name: string, spec: ColumnSpec): Knex.ColumnBuilder {
  const builder = (() => {
    switch (spec.type) {
      case 'text': return spec.maxLength === undefined ? table.text(name) : table.string(name, spec.maxLength);
      case 'integer': return table.bigInteger(name);
      case 'decimal': return table.decimal(name, spec.precision, spec.scale);
      case 'float': return table.double(name);
      case 'date': return table.date(name);
      case 'instant': return table.timestamp(name, { useTz: true, precision: 3 });
      case 'boolean': return table.boolean(name);
      case 'json': return table.text(name);
    }
  })();
  return spec.nullable ? builder.nullable() : builder.notNullable();
}

/** A canonical value as pg writes it (also the text `COPY` reads). */
export function toPostgresValue(spec: ColumnSpec, value: unknown): unknown {
  if (value === null) return null;
  return spec.type === 'json' ? JSON.stringify(value) : value;
}

/** A value as pg read it, back to canonical form. */
export function fromPostgresValue(spec: ColumnSpec, value: unknown): unknown {
  if (value === null || value === undefined) return null;
  switch (spec.type) {
    case 'integer': return Number(value);
    case 'float': return Number(value);
    case 'instant': return (value as Date).toISOString();
    case 'json': return JSON.parse(value as string);
    default: return value;
  }
}

