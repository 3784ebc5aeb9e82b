/**
 * Throws unless a row comes back from JSON.stringify + JSON.parse as it is: strings, finite
 * numbers, booleans, null, arrays and plain objects of those (what a zod schema of a CSV or JSON
 * source gives). Grouping over the whole source holds rows as JSON on disk (`sortRowsByKey`), so
 * it checks every row, also on a pass that turns out not to need the sort: a pipeline never
 * works on one file and fails on the next for that reason.
 * @throws TypeError naming the line and the field, and what it holds (a Date, a bigint, NaN).
 */
export function checkJsonRow(value: unknown, line: number): void {
  checkJsonValue(value, line, '');
}

/** Throws unless `value` comes back from JSON.stringify + JSON.parse as it is. */
function checkJsonValue(value: unknown, line: number, field: string): void {
  switch (typeof value) {
    case 'string':
    case 'boolean':
    case 'undefined':
      return;
    case 'number':
      if (Number.isFinite(value)) return;
      break;
    case 'object':
      if (value === null) return;
      if (Array.isArray(value)) {
        for (let i = 0; i < value.length; i++) {
          // JSON writes undefined in an array as null.
          if (value[i] === undefined) throw new TypeError(`line ${line}: ${field}[${i}] holds undefined, ${SPILL_RULE}`);
          checkJsonValue(value[i], line, `${field}[${i}]`);
        }
        return;
      }
      if (Object.getPrototypeOf(value) === Object.prototype || Object.getPrototypeOf(value) === null) {
        for (const name in value) checkJsonValue((value as Record<string, unknown>)[name], line, field ? `${field}.${name}` : name);
        return;
      }
      break;
  }
  const what = typeof value === 'object' ? (value as object).constructor?.name ?? 'object' : typeof value === 'number' ? String(value) : typeof value;
  throw new TypeError(`line ${line}: ${field || 'the row'} holds ${what}, ${SPILL_RULE}`);
}

const SPILL_RULE = "which does not survive grouping over the whole source (rows are written to disk as JSON): give the row schema JSON values, or group with over: 'window'";
