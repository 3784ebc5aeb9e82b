import { compositeSourceReference } from '../pipeline/composite-source-reference.ts';

/** A key field's value as text: text or a whole number, 1..200 characters; undefined otherwise. */
function keyText(value: unknown): string | undefined {
  const text = typeof value === 'string' ? value : Number.isSafeInteger(value) ? String(value) : undefined;
  return text === undefined || text.length === 0 || text.length > 200 ? undefined : text;
}

/**
 * Whether `key` (one field, or the fields of a composite key) is present, text or a whole number,
 * and unique in every sample row, its references as a run makes them.
 */
export function isUniqueKey(key: readonly string[], rows: readonly Readonly<Record<string, unknown>>[]): boolean {
  const seen = new Set<string>();
  for (const row of rows) {
    const parts = key.map((field) => keyText(row[field]));
    if (parts.some((part) => part === undefined)) return false;
    const reference = parts.length === 1 ? parts[0]! : compositeSourceReference(parts as string[]);
    if (seen.has(reference)) return false;
    seen.add(reference);
  }
  return rows.length > 0;
}

/**
 * The first field whose sample values are all present, unique and text or whole numbers: the
 * business key `idem new` proposes when none is named.
 * @returns undefined when no field qualifies.
 */
export function proposeKey(fields: readonly string[], rows: readonly Readonly<Record<string, unknown>>[]): string | undefined {
  return fields.find((field) => isUniqueKey([field], rows));
}
