import { isBig } from './is-big.ts';
import type { ColumnSpec } from './column-type.ts';

/** What each column type takes from a pipeline's `toRecords`, for messages. */
const EXPECTED: Readonly<Record<ColumnSpec['type'], string>> = {
  text: 'a string',
  integer: 'a number that is a safe integer',
  decimal: 'a decimal string, a Big, or a number the column holds exactly: at most 15 significant digits and scale decimals',
  float: 'a finite number or decimal text',
  date: 'a YYYY-MM-DD string',
  instant: 'a Date or an ISO UTC string',
  boolean: 'a boolean',
  json: 'a JSON value',
};

/** A value's JavaScript type and the value, for messages: `number 2.55`, `string "12.5"`. */
function received(value: unknown): string {
  if (isBig(value)) return `Big ${value.toString()}`;
  if (value instanceof Date) return `Date ${Number.isNaN(value.getTime()) ? 'Invalid Date' : value.toISOString()}`;
  if (typeof value === 'function' || typeof value === 'symbol') return typeof value;
  if (typeof value === 'bigint') return `bigint ${value}n`;
  const json = JSON.stringify(value);
  return `${Array.isArray(value) ? 'array' : typeof value} ${json !== undefined && json.length > 80 ? `${json.slice(0, 80)}…` : json}`;
}

/** A number whose shortest text has at most 15 significant digits and `scale` decimals. */
function numberFitsDecimal(value: number, scale: number): boolean {
  if (!Number.isFinite(value)) return false;
  const [mantissa = '', exponent = '0'] = Math.abs(value).toExponential().split('e');
  const digits = mantissa.replace('.', '').replace(/0+$/, '');
  return digits.length <= 15 && Math.max(0, digits.length - 1 - Number(exponent)) <= scale;
}

/**
 * Whether a non-null value has a JavaScript type its column never takes: a string for an integer
 * column, a Date for a date column, a number for a decimal column that the column cannot hold
 * exactly (float arithmetic noise such as `0.1 + 0.2`, more than 15 significant digits, more
 * decimals than its scale; a JSON number such as `10.5` fits). Such a value is the pipeline
 * code's mistake, not the source's (a source value that fails a rule of the right type, such as
 * too many decimals, is the source's). `null` and `undefined` are never a type mismatch.
 * @returns `{ expected, received }` for the message, or `undefined` when the type fits.
 */
export function valueTypeMismatch(spec: ColumnSpec, value: unknown): { expected: string; received: string } | undefined {
  if (value === null || value === undefined) return undefined;
  let fits: boolean;
  switch (spec.type) {
    case 'text':
      fits = typeof value === 'string' || (spec.id === true && typeof value === 'number');
      break;
    case 'date':
      fits = typeof value === 'string';
      break;
    case 'integer':
      fits = typeof value === 'number';
      break;
    case 'decimal':
      fits = typeof value === 'string' || isBig(value) || (typeof value === 'number' && numberFitsDecimal(value, spec.scale ?? 0));
      break;
    case 'float':
      fits = typeof value === 'number' || typeof value === 'string';
      break;
    case 'instant':
      fits = typeof value === 'string' || value instanceof Date;
      break;
    case 'boolean':
      fits = typeof value === 'boolean';
      break;
    case 'json':
      fits = typeof value !== 'function' && typeof value !== 'symbol' && typeof value !== 'bigint';
      break;
  }
  return fits ? undefined : { expected: `${spec.type} (${EXPECTED[spec.type]})`, received: received(value) };
}
