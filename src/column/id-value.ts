const FLOAT_ID = /^\d+\.0*$/;

/**
 * An identifier without the formatting an export gives it (see `column.id()`): text trimmed, a
 * whole number's float form (`17850.0`) without its `.0`, empty text `null`, a safe integer (a
 * JSON number) as its text. Anything else is returned as it is, for the caller to refuse.
 */
export function idValue(value: unknown): unknown {
  if (typeof value === 'number') return Number.isSafeInteger(value) ? String(value) : value;
  if (typeof value !== 'string') return value;
  const text = value.trim();
  if (text === '') return null;
  return FLOAT_ID.test(text) ? text.replace(/\.0*$/, '') : text;
}
