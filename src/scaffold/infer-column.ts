import { DateTime } from 'luxon';
import { column, type ColumnSpec } from '../column/column-type.ts';

/** How a sample gives its values: CSV as text (null tokens already `null`), JSON as parsed. */
export type SampleForm = 'text' | 'json';

/** The most digits a decimal idem infers may have; wider numbers are inferred as float (SQL Server carries 15 exactly). */
export const MAX_INFERRED_DECIMAL_DIGITS = 15;

const INTEGER = /^[+-]?(0|[1-9]\d*)$/;
const DECIMAL = /^[+-]?(0|[1-9]\d*)(\.\d+)?$/;
// No leading zeros: `007` is a code, not a number.
const FLOAT = /^[+-]?((0|[1-9]\d*)(\.\d*)?|\.\d+)(e[+-]?\d+)?$/i;
const DATE = /^\d{4}-\d{2}-\d{2}$/;
const DATE_TIME = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}/;
const BOOLEAN = new Set(['true', 'false']);

/** Whether a text is a date-time luxon reads (ISO 8601 or SQL), with an offset or in `timeZone`. */
function isInstant(text: string, timeZone: string): boolean {
  return DATE_TIME.test(text) && (DateTime.fromISO(text, { zone: timeZone }).isValid || DateTime.fromSQL(text, { zone: timeZone }).isValid);
}

/** decimal(p, s) that holds every one of the decimal texts exactly: `s` the most decimals seen, `p` the most integer digits plus `s`. */
function decimalOf(texts: readonly string[], nullable: boolean): ColumnSpec | undefined {
  let integerDigits = 1;
  let scale = 0;
  for (const text of texts) {
    const [whole, fraction = ''] = text.replace(/^[+-]/, '').split('.');
    integerDigits = Math.max(integerDigits, whole!.replace(/^0+(?=\d)/, '').length);
    scale = Math.max(scale, fraction.length);
  }
  const precision = integerDigits + scale;
  return precision <= MAX_INFERRED_DECIMAL_DIGITS ? column.decimal(precision, scale, { nullable }) : undefined;
}

/** The narrowest column type every text matches: integer, decimal, float, boolean, date, instant, else text. */
function inferFromText(texts: readonly string[], nullable: boolean, timeZone: string): ColumnSpec {
  const all = (test: (text: string) => boolean): boolean => texts.every(test);
  if (texts.length === 0) return column.text({ nullable });
  if (all((t) => INTEGER.test(t) && Number.isSafeInteger(Number(t)))) return column.integer({ nullable });
  if (all((t) => DECIMAL.test(t))) return decimalOf(texts, nullable) ?? column.float({ nullable });
  if (all((t) => FLOAT.test(t) && Number.isFinite(Number(t)))) return column.float({ nullable });
  if (all((t) => BOOLEAN.has(t.toLowerCase()) && ['true', 'false', 'TRUE', 'FALSE', 'True', 'False'].includes(t))) return column.boolean({ nullable });
  if (all((t) => DATE.test(t) && DateTime.fromISO(t).isValid)) return column.date({ nullable });
  if (all((t) => isInstant(t, timeZone))) return column.instant({ nullable });
  return column.text({ nullable });
}

/**
 * Infers one column from the values a sample holds for it. Nullable when any value is `null`
 * (or missing). From text: integer (no leading zeros, so codes such as `007` stay text),
 * decimal(p, s) from the widest value seen (float past 15 digits), float (exponent forms),
 * boolean (`true`/`false`), date (`YYYY-MM-DD`), instant (ISO 8601 or SQL date-time, read in
 * `timeZone` when it has no offset), else text. From JSON: booleans, integers, other numbers as
 * float, strings by the text rules, objects and arrays (or a mix of kinds) as json.
 */
export function inferColumn(values: readonly unknown[], form: SampleForm, timeZone: string): ColumnSpec {
  const present = values.filter((value) => value !== null && value !== undefined);
  const nullable = present.length < values.length;
  if (form === 'text') return inferFromText(present as string[], nullable, timeZone);
  const kinds = new Set(present.map((value) => (Array.isArray(value) ? 'array' : typeof value)));
  if (kinds.size === 0) return column.text({ nullable });
  if (kinds.size === 1 && kinds.has('boolean')) return column.boolean({ nullable });
  if (kinds.size === 1 && kinds.has('number')) {
    return present.every((value) => Number.isSafeInteger(value)) ? column.integer({ nullable }) : column.float({ nullable });
  }
  if (kinds.size === 1 && kinds.has('string')) {
    const spec = inferFromText(present as string[], nullable, timeZone);
    // A JSON string that looks like a number stays text unless it is a decimal (money sent as a string).
    return spec.type === 'integer' || spec.type === 'float' || spec.type === 'boolean' ? column.text({ nullable }) : spec;
  }
  return column.json({ nullable });
}
