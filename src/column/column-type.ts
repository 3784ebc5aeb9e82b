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
}

/** Builders for {@link ColumnSpec}, used in `definePipeline({ columns })`. */
export const column = {
  text: (opts: { nullable?: boolean; maxLength?: number } = {}): ColumnSpec => ({
    type: 'text',
    nullable: opts.nullable ?? false,
    ...(opts.maxLength === undefined ? {} : { maxLength: opts.maxLength }),
  }),
  integer: (opts: { nullable?: boolean } = {}): ColumnSpec => ({ type: 'integer', nullable: opts.nullable ?? false }),
  decimal: (precision: number, scale: number, opts: { nullable?: boolean } = {}): ColumnSpec => ({
    type: 'decimal',
    precision,
    scale,
    nullable: opts.nullable ?? false,
  }),
  /** A double for measurements; see `ColumnType` for how changes of a float are detected. */
  float: (opts: { nullable?: boolean } = {}): ColumnSpec => ({ type: 'float', nullable: opts.nullable ?? false }),
  date: (opts: { nullable?: boolean } = {}): ColumnSpec => ({ type: 'date', nullable: opts.nullable ?? false }),
  instant: (opts: { nullable?: boolean } = {}): ColumnSpec => ({ type: 'instant', nullable: opts.nullable ?? false }),
  boolean: (opts: { nullable?: boolean } = {}): ColumnSpec => ({ type: 'boolean', nullable: opts.nullable ?? false }),
  json: (opts: { nullable?: boolean } = {}): ColumnSpec => ({ type: 'json', nullable: opts.nullable ?? false }),
} as const;

/** The business columns of a pipeline, in table order. Names are snake_case SQL identifiers. */
export type ColumnSpecs = Readonly<Record<string, ColumnSpec>>;
