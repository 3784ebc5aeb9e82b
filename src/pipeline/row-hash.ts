import { createHash } from 'node:crypto';

/**
 * The content version of a record: SHA-256 (hex, 64 characters) over its business key and its
 * canonical values in column order. Stable across runs, processes and dialects; never built
 * from volatile fields such as timestamps or run keys.
 */
export function rowHash(sourceSystem: string, sourceReference: string, canonicalValues: readonly unknown[]): string {
  return createHash('sha256').update(JSON.stringify([sourceSystem, sourceReference, ...canonicalValues])).digest('hex');
}
