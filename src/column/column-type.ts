import type { z, ZodType } from 'zod';

/**
 * The business column types a pipeline can declare. Each has one canonical JavaScript value
 * (what records carry, what the row hash covers, what reads return), and each dialect adapter
 * maps it to a column type that holds that value exactly:
 *
 * | type      | JS value                                  | PostgreSQL      | SQLite            |
 * |-----------|-------------------------------------------|-----------------|-------------------|
 * | text      | string (compared exactly: case, trailing   | text, or        | text              |
 * |           | spaces)                                   | varchar(n)      |                   |
 * | integer   | number (safe integer)                     | bigint          | integer           |
 * | decimal   | string with exactly `scale` decimals      | numeric(p, s)   | text (canonical)  |
 * | float     | number (finite IEEE 754 double)           | double precision| real              |
 * | date      | `YYYY-MM-DD` (a calendar date, no zone)   | date            | text              |
 * | instant   | ISO 8601 UTC with ms, `…T08:26:00.000Z`   | timestamptz(3)  | text              |
 * | boolean   | boolean                                   | boolean         | integer 0/1       |
 * | json      | any JSON value, stored as its JSON text   | text            | text              |
 *
 * MySQL/MariaDB store `float` as `double`, SQL Server as `float` (53 bits): every dialect holds
 * the double exactly, so a value read back is the value written.
 *
 * `float` is for measurements (temperatures, coordinates, sensor readings), where a value is a
 * double and nobody adds them up to the cent; money is `decimal`. Change detection for a float
 * is exact on the double: the row hash covers the shortest text that reads back as the same
 * double (`JSON.stringify`), and the upsert compares the stored doubles, so `0.1` and `0.10` are
 * one value, `0.1` and `0.1000000000000001` are two, and `-0` equals `0`. NaN and ±Infinity are
 * refused (they have no JSON form and compare differently per database).
 */
export type ColumnType = 'text' | 'integer' | 'decimal' | 'float' | 'date' | 'instant' | 'boolean' | 'json';

/** One business column of a pipeline's staging and target tables. */
export interface ColumnSpec {
  readonly type: ColumnType;
  /** Whether NULL is allowed. @defaultValue false */
  readonly nullable: boolean;
  /** decimal only: total digits. */
  readonly precision?: number;
  /** decimal only: digits after the point; values are rounded to nothing, they must fit. */
  readonly scale?: number;
  /** text only: the most characters a value may have; bounded text can be indexed. @defaultValue unbounded */
  readonly maxLength?: number;
  /**
   * text only (`column.id()`): an identifier, kept as text without the formatting an export
   * gives it: surrounding spaces, and a whole number's float form (`17850.0` → `17850`); empty
   * text is NULL. Leading zeros are kept: in an identifier they are part of it.
   */
  readonly id?: true;
  /**
   * instant only: the format (luxon's tokens, `yyyy-MM-dd HH:mm:ss`) of a local wall time in the
   * pipeline's time zone, which a record may give as text; see `wallTimeParser`.
   * @defaultValue none: a record gives a Date or the canonical ISO UTC text
   */
  readonly wallTime?: string;
  /**
   * json only: the zod schema of the document. A record's value is parsed by it and its output
   * stored, so the schema's own fields (`canonicalField.decimal(3)`, say) give nested values their
   * canonical form. @defaultValue none: any JSON value, stored as given (keys sorted)
   */
  readonly shape?: ZodType;
}

/** A {@link ColumnSpec} whose type and nullability are known to TypeScript: what the builders return. */
export type TypedColumnSpec<T extends ColumnType, N extends boolean, Extra = unknown> = ColumnSpec & { readonly type: T; readonly nullable: N } & Extra;

type Nullable<N extends boolean> = { readonly nullable?: N };

const nullableOf = <N extends boolean>(opts: Nullable<N>): N => (opts.nullable ?? false) as N;

/** Builders for {@link ColumnSpec}, used in `definePipeline({ columns })`. */
export const column = {
  text: <N extends boolean = false>(opts: Nullable<N> & { maxLength?: number } = {}): TypedColumnSpec<'text', NoInfer<N>> => ({
    type: 'text',
    nullable: nullableOf(opts),
    ...(opts.maxLength === undefined ? {} : { maxLength: opts.maxLength }),
  }),
  /**
   * An identifier stored as text, canonical: `' 17850.0 '` → `'17850'` (an export that writes a
   * customer number as a float is no change), `''` → NULL (so declare it nullable where a source
   * leaves it empty), a JSON number as its text; see `ColumnSpec.id`.
   */
  id: <N extends boolean = false>(opts: Nullable<N> & { maxLength?: number } = {}): TypedColumnSpec<'text', NoInfer<N>> => ({
    ...column.text(opts),
    id: true,
  }),
  integer: <N extends boolean = false>(opts: Nullable<N> = {}): TypedColumnSpec<'integer', NoInfer<N>> => ({ type: 'integer', nullable: nullableOf(opts) }),
  /**
   * A decimal with `precision` digits, `scale` of them after the point, stored as its text with
   * exactly `scale` decimals: `' 2.5500 '`, `'+2.55'` and `2.55` (a JSON number, a `Big`) are
   * one value, `'2.550'` for scale 3; a value with more significant decimals is an error, never rounded.
   */
  decimal: <N extends boolean = false>(precision: number, scale: number, opts: Nullable<N> = {}): TypedColumnSpec<'decimal', NoInfer<N>> => ({
    type: 'decimal',
    precision,
    scale,
    nullable: nullableOf(opts),
  }),
  /** A double for measurements; see `ColumnType` for how changes of a float are detected. */
  float: <N extends boolean = false>(opts: Nullable<N> = {}): TypedColumnSpec<'float', NoInfer<N>> => ({ type: 'float', nullable: nullableOf(opts) }),
  date: <N extends boolean = false>(opts: Nullable<N> = {}): TypedColumnSpec<'date', NoInfer<N>> => ({ type: 'date', nullable: nullableOf(opts) }),
  /**
   * A point in time, stored canonical (ISO 8601 UTC with ms). With `wallTime`, a record may give
   * it as a local wall time in that format in the pipeline's time zone (`{ wallTime: 'yyyy-MM-dd
   * HH:mm:ss' }`: `'2010-12-01 08:26:00'` → `'2010-12-01T08:26:00.000Z'` in London), parsed once
   * per distinct text; one that does not exist there (a spring DST gap, `24:00`) is an error.
   */
  instant: <N extends boolean = false>(opts: Nullable<N> & { wallTime?: string } = {}): TypedColumnSpec<'instant', NoInfer<N>> => ({
    type: 'instant',
    nullable: nullableOf(opts),
    ...(opts.wallTime === undefined ? {} : { wallTime: opts.wallTime }),
  }),
  boolean: <N extends boolean = false>(opts: Nullable<N> = {}): TypedColumnSpec<'boolean', NoInfer<N>> => ({ type: 'boolean', nullable: nullableOf(opts) }),
  /**
   * Any JSON document, stored as its text with object keys sorted. With `shape` (a zod schema),
   * each value is parsed by it first and its output stored, typed as that output in
   * `PostedRow.values`.
   */
  json: <N extends boolean = false, S extends ZodType = ZodType<unknown>>(opts: Nullable<N> & { shape?: S } = {}): TypedColumnSpec<'json', NoInfer<N>, { readonly shape?: S }> => ({
    type: 'json',
    nullable: nullableOf(opts),
    ...(opts.shape === undefined ? {} : { shape: opts.shape }),
  }),
} as const;

/** The business columns of a pipeline, in table order. Names are snake_case SQL identifiers. */
export type ColumnSpecs = Readonly<Record<string, ColumnSpec>>;

/** The canonical JS value of a column of `S` (see `ColumnType`), `null` included where it is nullable. */
export type ColumnValue<S extends ColumnSpec> = ColumnType extends S['type'] ? unknown : S['nullable'] extends false ? BaseValue<S> : BaseValue<S> | null;

type BaseValue<S extends ColumnSpec> = S['type'] extends 'integer' | 'float'
  ? number
  : S['type'] extends 'boolean'
    ? boolean
    : S['type'] extends 'json'
      ? S extends { readonly shape?: infer Z } ? (Z extends ZodType ? z.output<Z> : unknown) : unknown
      : string;

/**
 * The canonical values of a row of the columns `C`, by name: what `PostedRow.values` holds, so a
 * destination's request that reads a name that is no column (`row.values.totl`) does not compile.
 */
export type ColumnValues<C extends ColumnSpecs> = { readonly [K in keyof C]: ColumnValue<C[K]> };
