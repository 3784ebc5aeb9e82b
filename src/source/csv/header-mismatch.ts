/** The delimiters a CSV export commonly uses, with their names, for a hint when the declared one does not split the header. */
const OTHER_DELIMITERS: readonly (readonly [string, string])[] = [
  [',', 'comma'],
  [';', 'semicolon'],
  ['\t', 'tab'],
  ['|', 'pipe'],
];

/** Characters of the one header field a message quotes, at most. */
const QUOTED_CHARS = 60;

/**
 * The message for a file whose first line is not the expected header: what was expected, and
 * either that the file looks delimited by another of comma, semicolon, tab or pipe (splitting the line there gives
 * as many names as expected, and at commas does not), or, when the header is matched by name, the
 * `missing` names, or else the first column that differs, quoting that one field only (at most
 * 60 characters): the rest of the line is never echoed, since the file may not be what it was
 * meant to be.
 * For example `header must be a,b,c: the file looks semicolon-delimited (";"); declare csvSource({ delimiter: ";" })`,
 * `header must be a,b,c: no field named b`, or `header must be id,name,qty (column 2 is "title")`.
 */
export function headerMismatch(expected: readonly string[], firstLine: string, missing: readonly string[] = [], delimiter = ','): string {
  const message = `header must be ${expected.join(delimiter)}`;
  const cells = firstLine.split(delimiter);
  const other = cells.length === expected.length ? undefined : OTHER_DELIMITERS.find(([candidate]) => candidate !== delimiter && firstLine.split(candidate).length === expected.length);
  if (other) return `${message}: the file looks ${other[1]}-delimited (${JSON.stringify(other[0])}); declare csvSource({ delimiter: ${JSON.stringify(other[0])} })`;
  if (missing.length > 0) return `${message}: no field named ${missing.join(', ')}`;
  const at = expected.findIndex((name, i) => cells[i] !== name);
  if (at === -1 || at >= cells.length) return `${message} (got ${cells.length} column(s))`;
  const field = cells[at]!;
  return `${message} (column ${at + 1} is ${JSON.stringify(field.length > QUOTED_CHARS ? `${field.slice(0, QUOTED_CHARS)}…` : field)})`;
}
