/**
 * A json column stored as text, as its driver read it: its JSON text, `null` for SQL NULL. Every
 * dialect here stores JSON as the text `JSON.stringify` wrote (see `ColumnType`), never as a JSON
 * type that would normalise it.
 */
export function jsonTextValue(value: unknown): string | null {
  return value === null || value === undefined ? null : (value as string);
}
