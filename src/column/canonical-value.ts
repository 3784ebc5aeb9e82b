import { Big } from 'big.js';
import { isBig } from './is-big.ts';
import type { ColumnSpec } from './column-type.ts';
import { idValue } from './id-value.ts';
import { wallTimeParser } from './wall-time.ts';

const DATE = /^\d{4}-\d{2}-\d{2}$/;
/** The most significant digits a JSON number carries exactly through a double (IEEE 754: 15). */
const EXACT_NUMBER_DIGITS = 15;
const INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/**
 * A JSON value with every object's keys in sorted order (arrays keep theirs), as `JSON.stringify`
 * would write it (`toJSON` applied, `undefined` members left out), so two documents that differ
 * only in key order are one value, hash equal and store equal.
 * @throws TypeError for a number JSON cannot hold (NaN, ±Infinity).
 */
function sortedJson(name: string, value: unknown): unknown {
  if (Array.isArray(value)) return value.map((item) => sortedJson(name, item));
  if (value !== null && typeof value === 'object') {
    const json = (value as { toJSON?: () => unknown }).toJSON;
    if (typeof json === 'function') return sortedJson(name, json.call(value));
    const sorted: Record<string, unknown> = {};
    for (const key of Object.keys(value).sort()) {
      const member = (value as Record<string, unknown>)[key];
      if (member !== undefined && typeof member !== 'function') sorted[key] = sortedJson(name, member);
    }
    return sorted;
  }
  if (typeof value === 'number' && !Number.isFinite(value)) throw new TypeError(`column ${name}: a JSON number must be finite (got ${value})`);
  return value;
}

/**
 * Checks one business value against its column and returns its canonical form (see
 * `ColumnType`), so equal values always hash equal and a re-export with other formatting is no
 * change. Each column type reads its source's formats itself:
 * - text: as given; an id (`column.id()`) trimmed, a whole number's float form (`17850.0`) to
 *   `17850`, a JSON number to its text, empty text to NULL;
 * - integer: a safe integer;
 * - decimal: a string (surrounding spaces and a leading `+` are formatting), a `Big`, or a JSON
 *   number (as an HTTP JSON source parses it) of at most 15 significant digits, which a double
 *   carries exactly; written with exactly `scale` decimals;
 * - float: a finite number or decimal text;
 * - instant: a Date or ISO UTC text with ms; with `wallTime`, also a local wall time in that
 *   format in `timeZone` (see `wallTimeParser`);
 * - json: any JSON value, parsed by the column's `shape` first where it declares one, with its
 *   object keys sorted at every depth.
 *
 * @param timeZone the pipeline's IANA time zone; required by an instant column with `wallTime`.
 * @throws TypeError naming the column, the rule and the value.
 */
export function canonicalValue(name: string, spec: ColumnSpec, input: unknown, timeZone?: string): unknown {
  let value = input;
  const fail = (rule: string): never => {
    throw new TypeError(`column ${name}: ${rule} (got ${JSON.stringify(input)})`);
  };
  if (spec.id === true) value = idValue(value);
  if (value === null || value === undefined) return spec.nullable ? null : fail('must not be null');
  switch (spec.type) {
    case 'text':
      if (typeof value !== 'string') return fail(spec.id === true ? 'must be an identifier: text or a whole number' : 'must be a string');
      return spec.maxLength !== undefined && value.length > spec.maxLength ? fail(`must be at most ${spec.maxLength} characters`) : value;
    case 'integer':
      return Number.isSafeInteger(value) ? value : fail('must be a safe integer');
    case 'boolean':
      return typeof value === 'boolean' ? value : fail('must be a boolean');
    case 'json':
      return sortedJson(name, spec.shape === undefined ? value : shaped(spec, value, fail));
    case 'date':
      return typeof value === 'string' && DATE.test(value) ? value : fail('must be a YYYY-MM-DD string');
    case 'instant': {
      if (value instanceof Date) return Number.isNaN(value.getTime()) ? fail('must be a valid Date') : value.toISOString();
      if (typeof value === 'string' && INSTANT.test(value)) return value;
      if (spec.wallTime === undefined || typeof value !== 'string') return fail('must be a Date or an ISO UTC string with ms');
      if (timeZone === undefined) throw new TypeError(`column ${name}: a wall time needs the pipeline's time zone`);
      return wallTimeParser(spec.wallTime, timeZone)(value) ?? fail(`must be a date and time ${spec.wallTime} that exists in ${timeZone}`);
    }
    case 'float': {
      const number = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
      if (typeof number !== 'number') return fail('must be a number');
      return Number.isFinite(number) ? (Object.is(number, -0) ? 0 : number) : fail('must be a finite number');
    }
    case 'decimal': {
      if (typeof value === 'number') {
        if (!Number.isFinite(value)) fail('must be a finite number');
        const significant = new Big(value).c.length;
        if (significant > EXACT_NUMBER_DIGITS) fail(`is a JSON number of more than ${EXACT_NUMBER_DIGITS} significant digits, which a double does not carry exactly; send it as a string`);
        value = new Big(value);
      }
      if (typeof value !== 'string' && !(isBig(value))) fail('must be a decimal string, a Big or a JSON number');
      let big: Big;
      try {
        // big.js reads neither surrounding spaces nor a leading `+`.
        big = new Big(typeof value === 'string' ? value.trim().replace(/^\+/, '') : (value as Big));
      } catch {
        return fail('must be a decimal number');
      }
      const scale = spec.scale ?? 0;
      const fixed = big.toFixed(scale);
      if (!new Big(fixed).eq(big)) fail(`has more than ${scale} decimals`);
      const digits = fixed.replace(/^-/, '').replace('.', '').replace(/^0+(?=\d)/, '');
      if (digits.length > (spec.precision ?? 38)) fail(`needs more than ${spec.precision} digits`);
      return fixed;
    }
  }
}

/** A json column's value as its `shape` outputs it. @throws TypeError (through `fail`) naming the path and the shape's rule. */
function shaped(spec: ColumnSpec, value: unknown, fail: (rule: string) => never): unknown {
  const parsed = spec.shape!.safeParse(value);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  return fail(`${issue.path.length > 0 ? `at ${issue.path.join('.')}: ` : ''}${issue.message}`);
}
