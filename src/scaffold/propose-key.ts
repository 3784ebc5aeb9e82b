/**
 * The first field whose sample values are all present, unique and text or whole numbers: the
 * business key `idem new` proposes when none is named.
 * @returns undefined when no field qualifies.
 */
export function proposeKey(fields: readonly string[], rows: readonly Readonly<Record<string, unknown>>[]): string | undefined {
  return fields.find((field) => {
    const seen = new Set<string>();
    for (const row of rows) {
      const value = row[field];
      const text = typeof value === 'string' ? value : Number.isSafeInteger(value) ? String(value) : undefined;
      if (text === undefined || text.length === 0 || text.length > 200 || seen.has(text)) return false;
      seen.add(text);
    }
    return rows.length > 0;
  });
}
