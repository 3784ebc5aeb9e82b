import { RawJson } from '../http/raw-json.ts';

/**
 * Where a request body holds `undefined` inside it (a typo such as `row.values.totl`, or a field
 * the row lacks): `JSON.stringify` leaves such a field out, and a PUT then replaces the remote
 * record without it. Paths like `body.lines[2].price`; `body` itself when the value is undefined.
 * A `RawJson` value is JSON text, and holds none; only plain objects and arrays are looked into.
 */
export function undefinedBodyFields(value: unknown, at = 'body'): string[] {
  if (value === undefined) return [at];
  if (value === null || typeof value !== 'object' || value instanceof RawJson) return [];
  if (Array.isArray(value)) return value.flatMap((item, i) => undefinedBodyFields(item, `${at}[${i}]`));
  const proto = Object.getPrototypeOf(value) as unknown;
  if (proto !== Object.prototype && proto !== null) return [];
  return Object.entries(value).flatMap(([key, item]) => undefinedBodyFields(item, `${at}.${key}`));
}
