import { Big } from 'big.js';
import type { ColumnSpec } from './column-type.ts';

/** What each column type takes from a pipeline's `toRecords`, for messages. */
const EXPECTED: Readonly<Record<ColumnSpec['type'], string>> = {
  text: 'a string',
  integer: 'a number that is a safe integer',
  decimal: 'a decimal string or a Big, never a float',
  date: 'a YYYY-MM-DD string',
  instant: 'a Date or an ISO UTC string',
  boolean: 'a boolean',
  json: 'a JSON value',
};

/** A value's JavaScript type and the value, for messages: `number 2.55`, `string "12.5"`. */
function received(value: unknown): string {
  if (value instanceof Big) return `Big ${value.toString()}`;
  if (value instanceof Date) return `Date ${Number.isNaN(value.getTime()) ? 'Invalid Date' : value.toISOString()}`;
  if (typeof value === 'function' || typeof value === 'symbol') return typeof value;
  if (typeof value === 'bigint') return `bigint ${value}n`;
  const json = JSON.stringify(value);
  return `${Array.isArray(value) ? 'array' : typeof value} ${json !== undefined && json.length > 80 ? `${json.slice(0, 80)}…` : json}`;
}

/**
 * Whether a non-null value has a JavaScript type its column never takes: a number for a decimal
 * column, a string for an integer column, a Date for a date column. Such a value is the pipeline
 * code's mistake, not the source's (a source value that fails a rule of the right type, such as
 * too many decimals, is the source's). `null` and `undefined` are never a type mismatch.
 * @returns `{ expected, received }` for the message, or `undefined` when the type fits.
 */
export function valueTypeMismatch(spec: ColumnSpec, value: unknown): { expected: string; received: string } | undefined {
  if (value === null || value === undefined) return undefined;
  let fits: boolean;
  switch (spec.type) {
    case 'text':
    case 'date':
      fits = typeof value === 'string';
      break;
    case 'integer':
      fits = typeof value === 'number';
      break;
    case 'decimal':
      fits = typeof value === 'string' || value instanceof Big;
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
