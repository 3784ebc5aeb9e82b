import type { Knex } from 'knex';
import type { ConnectionOptions } from 'mysql2';
import type { ColumnSpec } from '../../column/column-type.ts';

/** Which server speaks the MySQL protocol: the exact text collation differs between them. */
export type MysqlFlavour = 'mariadb' | 'mysql';

/**
 * Session settings for every idem connection (pool and lock connection), one statement:
 * `time_zone` UTC, so `NOW()` and `TIMESTAMP` conversions never depend on the server's zone
 * (idem's instants are `datetime(3)` holding UTC, written as text, so they never convert), and a
 * fixed strict `sql_mode`, so a value that does not fit fails instead of being truncated, and
 * neither `NO_BACKSLASH_ESCAPES` (mysql2 escapes with backslashes) nor `ANSI_QUOTES` is on,
 * whatever the server's default. Every mode named exists on every supported server
 * (`MYSQL_MINIMUM_RELEASES`).
 */
export const MYSQL_SESSION_SQL =
  "set time_zone = '+00:00', sql_mode = 'STRICT_TRANS_TABLES,STRICT_ALL_TABLES,NO_ZERO_IN_DATE,NO_ZERO_DATE,ERROR_FOR_DIVISION_BY_ZERO,NO_ENGINE_SUBSTITUTION'";

/**
 * mysql2 options for a `mysql://` or `mariadb://` URL (mysql2 parses the URL; `mariadb:` is
 * rewritten to `mysql:`, the only scheme-independent difference). Settled type quirks:
 * - `supportBigNumbers`: BIGINT and DECIMAL never go through a float (DECIMAL stays the exact
 *   string the server sent, `10.50`; safe BIGINTs are numbers).
 * - `dateStrings: ['DATE']`: a DATE stays `YYYY-MM-DD` text (mysql2's default builds a local
 *   midnight `Date`, which shifts the day in any process zone west of UTC).
 * - `timezone: 'Z'`: a DATETIME read (and any JS `Date` bound) is UTC, whatever `TZ` says.
 * - `charset: 'utf8mb4'`, no multiple statements. `LOCAL_FILES` (for `LOAD DATA LOCAL INFILE`)
 *   is one of mysql2's default client flags; it is named again so it stays on.
 */
export function mysqlConnectionOptions(url: string): ConnectionOptions {
  return {
    uri: url.replace(/^mariadb:/, 'mysql:'),
    supportBigNumbers: true,
    dateStrings: ['DATE'],
    timezone: 'Z',
    charset: 'utf8mb4',
    multipleStatements: false,
    flags: ['LOCAL_FILES'],
  };
}

/**
 * The collation of every idem text column: exact (binary, so case counts) and NO PAD (so
 * trailing spaces count, in comparisons and in unique keys). MariaDB calls it
 * `utf8mb4_nopad_bin` (since 10.2); MySQL `utf8mb4_0900_bin` (since 8.0.17; its `utf8mb4_bin`
 * pads).
 */
export function exactCollation(flavour: MysqlFlavour): string {
  return flavour === 'mariadb' ? 'utf8mb4_nopad_bin' : 'utf8mb4_0900_bin';
}

/**
 * Adds a business column with a MySQL/MariaDB type that holds its canonical value exactly:
 * text `varchar(n)` (with `maxLength`) or `longtext`, both in the exact collation; integer
 * `bigint`; decimal `decimal(p, s)`; float `double`; date `date`; instant `datetime(3)` holding UTC; boolean
 * `tinyint(1)`; json `longtext` in the exact collation (not the JSON type, which normalises the
 * text it stores and would make an unchanged document compare as changed).
 */
export function addMysqlColumn(table: Knex.TableBuilder, name: string, spec: ColumnSpec, collation: string): Knex.ColumnBuilder {
  const builder = (() => {
    switch (spec.type) {
      case 'text':
        return (spec.maxLength === undefined ? table.text(name, 'longtext') : table.string(name, spec.maxLength)).collate(collation);
      case 'integer': return table.bigInteger(name);
      case 'decimal': return table.decimal(name, spec.precision, spec.scale);
      case 'float': return table.double(name);
      case 'date': return table.date(name);
      case 'instant': return table.datetime(name, { precision: 3 });
      case 'boolean': return table.boolean(name);
      case 'json': return table.text(name, 'longtext').collate(collation);
    }
  })();
  return spec.nullable ? builder.nullable() : builder.notNullable();
}

/**
 * A canonical value as mysql2 binds it and as `LOAD DATA` reads it: booleans 0/1, instants
 * `YYYY-MM-DD HH:MM:SS.mmm` (UTC; the canonical ISO form without `T` and `Z`), JSON as text.
 */
export function toMysqlValue(spec: ColumnSpec, value: unknown): unknown {
  if (value === null || value === undefined) return null;
  switch (spec.type) {
    case 'boolean': return value ? 1 : 0;
    case 'instant': return (value as string).slice(0, 23).replace('T', ' ');
    case 'json': return JSON.stringify(value);
    default: return value;
  }
}

/** `YYYY-MM-DD HH:MM:SS[.f…]` (a DATETIME as text, UTC) as a canonical ISO instant with ms. */
function instantFromText(text: string): string {
  const match = /^(\d{4}-\d{2}-\d{2})[ T](\d{2}:\d{2}:\d{2})(?:\.(\d+))?/.exec(text);
  if (!match) throw new TypeError(`not a DATETIME: ${JSON.stringify(text)}`);
  return `${match[1]}T${match[2]}.${(match[3] ?? '').padEnd(3, '0').slice(0, 3)}Z`;
}

/** A value as mysql2 read it, back to canonical form. */
export function fromMysqlValue(spec: ColumnSpec, value: unknown): unknown {
  if (value === null || value === undefined) return null;
  switch (spec.type) {
    case 'integer': return Number(value);
    case 'float': return Number(value);
    case 'boolean': return Number(value) !== 0;
    case 'instant': return value instanceof Date ? value.toISOString() : instantFromText(String(value));
    case 'json': return JSON.parse(value as string);
    default: return value;
  }
}
