/** Delimiters other than the comma that a CSV export commonly uses, with their names. */
const OTHER_DELIMITERS: readonly (readonly [string, string])[] = [
  [';', 'semicolon'],
  ['\t', 'tab'],
  ['|', 'pipe'],
];

/** Characters of the file's first line a message quotes, at most. */
const QUOTED_CHARS = 200;

/**
 * The message for a file whose first line is not the expected header: what was expected, what
 * the line holds, and, when splitting the line at a semicolon, tab or pipe gives as many names
 * as expected (and at commas does not), that the file looks delimited by it; else the
 * `missing` names, when the header is matched by name.
 * For example `header must be a,b,c (got a;b;c): the file looks semicolon-delimited (";"); idem reads comma-separated files`.
 */
export function headerMismatch(expected: readonly string[], firstLine: string, missing: readonly string[] = []): string {
  const got = firstLine.length > QUOTED_CHARS ? `${firstLine.slice(0, QUOTED_CHARS)}…` : firstLine;
  const message = `header must be ${expected.join(',')} (got ${got})`;
  if (firstLine.split(',').length === expected.length) return missing.length > 0 ? `${message}: no field named ${missing.join(', ')}` : message;
  const other = OTHER_DELIMITERS.find(([delimiter]) => firstLine.split(delimiter).length === expected.length);
  if (other) return `${message}: the file looks ${other[1]}-delimited (${JSON.stringify(other[0])}); idem reads comma-separated files`;
  return missing.length > 0 ? `${message}: no field named ${missing.join(', ')}` : message;
}
