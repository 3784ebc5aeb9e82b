import { createHash } from 'node:crypto';

/**
 * The content version of a record: SHA-256 (hex, 64 characters) over its business key and its
 * canonical values in column order. Stable across runs, processes and dialects; never built
 * from volatile fields such as timestamps or run keys.
 */
export function rowHash(sourceSystem: string, sourceReference: string, canonicalValues: readonly unknown[]): string {
  return rowHashOfJson(sourceSystem, sourceReference, canonicalValues.map((value) => JSON.stringify(value ?? null)));
}

/**
 * {@link rowHash} from the values already serialised, each as `JSON.stringify` writes it: the
 * hashed text is the JSON array `[sourceSystem, sourceReference, …values]`, byte for byte, so
 * a caller that needs a value's JSON text anyway (a `json` column's driver value) serialises it
 * once.
 */
export function rowHashOfJson(sourceSystem: string, sourceReference: string, valuesJson: readonly string[]): string {
  let text = `[${JSON.stringify(sourceSystem)},${JSON.stringify(sourceReference)}`;
  for (const json of valuesJson) text += `,${json}`;
  return createHash('sha256').update(`${text}]`).digest('hex');
}
