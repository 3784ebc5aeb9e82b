/** Normalises whatever was thrown into an `Error`. */
export function coerceError(value: unknown): Error {
  if (value instanceof Error) return value;
  return new Error(typeof value === 'string' ? value : JSON.stringify(value));
}
