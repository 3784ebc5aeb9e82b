/**
 * One row as a CSV line (RFC 4180) for bulk loads that read CSV (PostgreSQL `COPY … (FORMAT
 * csv)`, MySQL `LOAD DATA`): NULL is an empty unquoted field, every string is quoted (so an
 * empty string stays distinct from NULL), inner quotes are doubled. Ends with `\n`.
 * @param delimiter between fields. @defaultValue ','
 */
export function csvLine(values: readonly unknown[], delimiter = ','): string {
  let line = '';
  for (let i = 0; i < values.length; i++) {
    if (i > 0) line += delimiter;
    const value = values[i];
    if (value === null || value === undefined) continue;
    line += typeof value === 'string' ? `"${value.replaceAll('"', '""')}"` : String(value);
  }
  return `${line}\n`;
}
