import { DateTime } from 'luxon';
import { z, type ZodType } from 'zod';
import { canonicalValue } from '../column/canonical-value.ts';
import type { ColumnSpec, ColumnSpecs } from '../column/column-type.ts';
import { PLAIN_NUMBERS, plainNumberText, type NumberFormat } from './number-format.ts';

/**
 * How a source gives its fields: CSV as text, HTTP JSON as parsed JSON values, a SQL query as its
 * driver gives them (an integer as a number or, for a 64-bit column, its digits; a boolean as
 * `true`/`false` or 1/0; a JSON column as a value or its text; instants as ISO text).
 */
export type SourceFieldForm = 'text' | 'json' | 'sql';

/** What {@link columnsRowSchema} derives a row schema from. */
export interface ColumnsRowSchemaSpec {
  /** The source field that holds the business key (the record's `sourceReference`), or the fields of a composite key. */
  readonly key: string | readonly string[];
  /** The pipeline's business columns; each is read from the source field of the same name. */
  readonly columns: ColumnSpecs;
  /** The source field of each column whose name differs from the column's. @defaultValue {} */
  readonly fields?: Readonly<Record<string, string>>;
  readonly form: SourceFieldForm;
  /** IANA zone of an instant written without an offset (`2024-03-01 08:30`). */
  readonly timeZone: string;
  /** How a text source writes integer, decimal and float values. @defaultValue {@link PLAIN_NUMBERS} */
  readonly numberFormat?: NumberFormat;
}

/** A row as a derived schema gives it: the key as text, and each column's canonical value. */
export type ColumnsRow = Readonly<Record<string, unknown>>;

const BOOLEAN_TEXT: Readonly<Record<string, boolean>> = { true: true, false: false, TRUE: true, FALSE: false, True: true, False: false };

/** An instant's text: ISO 8601 or SQL form, with an offset or in `timeZone`, to the canonical ISO UTC form with ms. */
function instantOf(text: string, timeZone: string): string {
  let parsed = DateTime.fromISO(text, { zone: timeZone, setZone: false });
  if (!parsed.isValid) parsed = DateTime.fromSQL(text, { zone: timeZone });
  if (!parsed.isValid) throw new TypeError('must be an ISO 8601 or SQL date-time');
  return parsed.toUTC().toISO({ suppressMilliseconds: false })!;
}

/** A field's value as `canonicalValue` takes it for its column, from the source's form (`plainNumber`: a number's text in the source's format to plain decimal text). */
function inputOf(spec: ColumnSpec, raw: unknown, source: ColumnsRowSchemaSpec, plainNumber: (text: string) => string): unknown {
  if (raw === null || raw === undefined) return null;
  // Spaces around a value read as a number, date, instant, boolean or JSON are formatting, not
  // data; a text column keeps its value as written.
  const value = typeof raw === 'string' && spec.type !== 'text' ? raw.trim() : raw;
  if (spec.type === 'instant' && typeof value === 'string' && spec.wallTime === undefined) return instantOf(value, source.timeZone);
  if (source.form === 'json') return value;
  if (source.form === 'sql') return sqlInputOf(spec, value);
  const text = spec.type === 'integer' || spec.type === 'decimal' || spec.type === 'float' ? plainNumber(value as string) : (value as string);
  switch (spec.type) {
    case 'integer': return /^[+-]?\d+$/.test(text) ? Number(text) : text;
    case 'boolean': return BOOLEAN_TEXT[text] ?? text;
    case 'json': {
      try {
        return JSON.parse(text) as unknown;
      } catch {
        throw new TypeError('must be a JSON document');
      }
    }
    default: return text;
  }
}

/** A SQL driver's value as `canonicalValue` takes it (see {@link SourceFieldForm}). */
function sqlInputOf(spec: ColumnSpec, value: unknown): unknown {
  switch (spec.type) {
    case 'integer': return typeof value === 'string' && /^[+-]?\d+$/.test(value) ? Number(value) : value;
    case 'boolean': return value === 0 || value === 1 ? value === 1 : value;
    case 'json': {
      if (typeof value !== 'string') return value;
      try {
        return JSON.parse(value) as unknown;
      } catch {
        throw new TypeError('must be a JSON document');
      }
    }
    default: return value;
  }
}

/** The rule of a `canonicalValue` error, without its `column …:` and `(got …)` (the quarantine adds both). */
function ruleOf(error: unknown): string {
  return (error as Error).message.replace(/^column [^:]+: /, '').replace(/ \(got [\s\S]*\)$/, '');
}

/**
 * The row schema a pipeline with a `key` gets when its source declares none: one zod field for
 * the key (non-empty text; a JSON number is taken as its text) and one per column, read from the
 * source field of the same name (or the one `fields` names) and converted to the column's canonical value (see `ColumnType`)
 * by the column's own rules, so a column is declared once. From CSV text: integers, decimals and
 * floats from their decimal text (in the source's `numberFormat`: `1.234,50` with a decimal comma), booleans from `true`/`false` (any of `TRUE`, `True`), dates
 * `YYYY-MM-DD`, instants ISO 8601 or SQL (`2024-03-01 08:30:00`) with an offset or in
 * `timeZone`, JSON from its text. From JSON: the values as parsed (a JSON number for an integer,
 * decimal or float column), instants from their text as above. A NULL (a CSV null token, a JSON
 * `null` or a missing field) passes only for a nullable column. Spaces around a value are
 * formatting, not data: the key, and a field read as a number, date, instant, boolean or JSON
 * (CSV text, or a JSON string), are trimmed before their rule; a text column keeps its value as
 * written.
 */
export function columnsRowSchema(spec: ColumnsRowSchemaSpec): ZodType<ColumnsRow> {
  const key = z.unknown().transform((value, ctx) => {
    const text = typeof value === 'number' && Number.isFinite(value) ? String(value) : typeof value === 'string' ? value.trim() : value;
    if (typeof text === 'string' && text.length > 0 && text.length <= 200) return text;
    ctx.addIssue({ code: 'custom', message: 'the business key must be text of 1..200 characters' });
    return z.NEVER;
  });
  // Keyed by source field, so an issue names the field the source has (what a quarantine reason
  // quotes); renamed to the columns' names once every field is valid.
  const fieldOf = (name: string): string => spec.fields?.[name] ?? name;
  const plainNumber = plainNumberText(spec.numberFormat ?? PLAIN_NUMBERS);
  const keys = typeof spec.key === 'string' ? [spec.key] : spec.key;
  const shape: Record<string, ZodType> = Object.fromEntries(keys.map((field) => [field, key]));
  for (const [name, column] of Object.entries(spec.columns)) {
    shape[fieldOf(name)] = z.unknown().transform((value, ctx) => {
      try {
        return canonicalValue(name, column, inputOf(column, value, spec, plainNumber), spec.timeZone);
      } catch (error) {
        ctx.addIssue({ code: 'custom', message: ruleOf(error) });
        return z.NEVER;
      }
    });
  }
  const names = [...keys, ...Object.keys(spec.columns)];
  // A field the item does not have is read as NULL (zod would not run a field's schema on it).
  const fill = (value: unknown): unknown => {
    if (value === null || typeof value !== 'object' || Array.isArray(value)) return value;
    const item = value as Record<string, unknown>;
    return Object.fromEntries(names.map((name) => [fieldOf(name), item[fieldOf(name)] ?? null]));
  };
  const byColumn = (row: Record<string, unknown>): ColumnsRow => Object.fromEntries(names.map((name) => [name, row[fieldOf(name)]]));
  return z.preprocess(fill, z.object(shape)).transform(byColumn) as unknown as ZodType<ColumnsRow>;
}
