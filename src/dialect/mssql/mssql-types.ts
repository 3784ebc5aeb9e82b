import type { Knex } from 'knex';
import { TYPES } from 'tedious';
import { UsageError } from '../../errors/usage-error.ts';
import type { ColumnSpec } from '../../column/column-type.ts';

/**
 * The collation of every text column idem creates on SQL Server: binary, so comparisons are
 * exact and case-sensitive whatever the database's default collation is.
 *
 * One difference no collation removes: SQL Server compares strings with ANSI padding, so `=`,
 * `GROUP BY`, unique indexes and `EXCEPT` treat `'abc'` and `'abc '` as equal. For business
 * columns the upsert still sees a change that only adds or removes trailing spaces, because it
 * also compares `row_hash` (computed in JS over the exact text). Keys (`source_system`,
 * `source_reference`) that differ only in trailing spaces are one key on SQL Server.
 */
export const MSSQL_TEXT_COLLATION = 'Latin1_General_100_BIN2';

/** The longest `nvarchar(n)`; longer bounded text becomes `nvarchar(max)`. */
export const MSSQL_NVARCHAR_MAX_LENGTH = 4000;

/**
 * The most decimal digits idem stores on SQL Server. tedious reads `decimal` as a JS number
 * (and writes decimal parameters through one), which holds every value of up to 15 significant
 * digits exactly (`toFixed(scale)` gives the canonical string back), and no more.
 */
export const MSSQL_EXACT_DECIMAL_DIGITS = 15;

/** A tedious data type, as `TYPES` holds them. */
export type TediousType = (typeof TYPES)[keyof typeof TYPES];

/** How a column is declared on a tedious bulk load: it must match the table column exactly. */
export interface MssqlBulkColumnType {
  readonly type: TediousType;
  readonly options: { readonly nullable: boolean; readonly length?: number; readonly precision?: number; readonly scale?: number };
}

/**
 * Refuses a decimal column whose values tedious cannot carry exactly.
 * @throws UsageError naming the column and the limit.
 */
export function assertExactMssqlDecimal(name: string, spec: ColumnSpec): void {
  if (spec.type === 'decimal' && (spec.precision ?? 38) > MSSQL_EXACT_DECIMAL_DIGITS) {
    throw new UsageError(
      `column ${name}: decimal(${spec.precision}, ${spec.scale}) is not supported on SQL Server: the tedious driver carries decimals as JS numbers, ` +
        `exact only up to ${MSSQL_EXACT_DECIMAL_DIGITS} digits; declare column.decimal(p, s) with p <= ${MSSQL_EXACT_DECIMAL_DIGITS}`,
    );
  }
}

function textType(maxLength: number | undefined): string {
  const length = maxLength !== undefined && maxLength <= MSSQL_NVARCHAR_MAX_LENGTH ? String(maxLength) : 'max';
  return `nvarchar(${length}) collate ${MSSQL_TEXT_COLLATION}`;
}

/** The SQL Server column type (without NULL / NOT NULL) that holds a canonical value exactly. */
export function mssqlColumnType(name: string, spec: ColumnSpec): string {
  switch (spec.type) {
    case 'text': return textType(spec.maxLength);
    case 'integer': return 'bigint';
    case 'decimal':
      assertExactMssqlDecimal(name, spec);
      return `decimal(${spec.precision ?? MSSQL_EXACT_DECIMAL_DIGITS}, ${spec.scale ?? 0})`;
    case 'float': return 'float(53)';
    case 'date': return 'date';
    case 'instant': return 'datetime2(3)';
    case 'boolean': return 'bit';
    case 'json': return textType(undefined);
  }
}

/**
 * Adds a business column with a SQL Server type that holds its canonical value exactly. knex's
 * mssql column compiler has no `collate` modifier, hence `specificType`.
 * @throws UsageError for a decimal wider than {@link MSSQL_EXACT_DECIMAL_DIGITS} digits.
 */
export function addMssqlColumn(table: Knex.TableBuilder, name: string, spec: ColumnSpec): Knex.ColumnBuilder {
  const builder = table.specificType(name, mssqlColumnType(name, spec));
  return spec.nullable ? builder.nullable() : builder.notNullable();
}

/**
 * A canonical value as idem binds it on SQL Server. Dates stay `YYYY-MM-DD` text (the server
 * converts ISO dates exactly, independent of `SET DATEFORMAT` / language, and no JS Date is
 * involved); decimals stay text (converted exactly by the server); instants become a `Date`
 * (bound as `datetime2` through `mssqlMapBinding`, written with UTC getters: `useUTC: true`).
 */
export function toMssqlValue(spec: ColumnSpec, value: unknown): unknown {
  if (value === null || value === undefined) return null;
  switch (spec.type) {
    case 'instant': return new Date(value as string);
    case 'json': return JSON.stringify(value);
    default: return value;
  }
}

/** `YYYY-MM-DD` of a Date by its UTC fields (tedious with `useUTC: true` reads a `date` as UTC midnight). */
function utcDate(value: Date): string {
  return value.toISOString().slice(0, 10);
}

/**
 * A value as tedious read it, back to canonical form. Only UTC getters are used, so the result
 * never depends on the process time zone.
 * @throws UsageError for a decimal read as a JS number from a column wider than 15 digits.
 */
export function fromMssqlValue(spec: ColumnSpec, value: unknown): unknown {
  if (value === null || value === undefined) return null;
  switch (spec.type) {
    case 'integer': return Number(value); // tedious reads bigint as a string
    case 'float': return Number(value);
    case 'decimal': {
      if (typeof value !== 'number') return String(value);
      assertExactMssqlDecimal('(read)', spec);
      return value.toFixed(spec.scale ?? 0);
    }
    case 'date': return value instanceof Date ? utcDate(value) : String(value).slice(0, 10);
    case 'instant': return (value instanceof Date ? value : new Date(String(value))).toISOString();
    case 'boolean': return value === true || value === 1;
    case 'json': return JSON.parse(value as string);
    case 'text': return value;
  }
}

/** How a column of this spec is declared on a tedious bulk load (the same type as {@link mssqlColumnType}). */
export function mssqlBulkColumnType(name: string, spec: ColumnSpec): MssqlBulkColumnType {
  const nullable = spec.nullable;
  switch (spec.type) {
    case 'text':
      return { type: TYPES.NVarChar, options: { nullable, length: spec.maxLength !== undefined && spec.maxLength <= MSSQL_NVARCHAR_MAX_LENGTH ? spec.maxLength : Infinity } };
    case 'json': return { type: TYPES.NVarChar, options: { nullable, length: Infinity } };
    case 'integer': return { type: TYPES.BigInt, options: { nullable } };
    case 'decimal':
      assertExactMssqlDecimal(name, spec);
      return { type: TYPES.Decimal, options: { nullable, precision: spec.precision ?? MSSQL_EXACT_DECIMAL_DIGITS, scale: spec.scale ?? 0 } };
    case 'float': return { type: TYPES.Float, options: { nullable } };
    case 'date': return { type: TYPES.Date, options: { nullable } };
    case 'instant': return { type: TYPES.DateTime2, options: { nullable, scale: 3 } };
    case 'boolean': return { type: TYPES.Bit, options: { nullable } };
  }
}

/**
 * A driver value (see {@link toMssqlValue}) as a bulk load writes it. A bulk load sends typed
 * values, not text the server converts: a `date` becomes the Date at UTC midnight of that day
 * (tedious writes it by UTC getters), never a local-time parse of the string.
 */
export function toMssqlBulkValue(spec: ColumnSpec, value: unknown): unknown {
  if (value === null || value === undefined) return null;
  if (spec.type === 'date') return new Date(`${value as string}T00:00:00.000Z`);
  return value;
}
